import { quantity } from "../../util/hex.ts";
import type { RpcBackend } from "../backend.ts";
import { defineMethod, optional, required } from "../method.ts";
import { parseAddress, parseBlockSelector } from "../params.ts";
import { resolveStateBlock } from "../resolveBlock.ts";

/** eth_getTransactionCount(address, block = latest) → nonce. */
export function getTransactionCount(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseAddress), optional(parseBlockSelector)],
    handler: ([address, selector]) => {
      const block = resolveStateBlock(backend.chain, selector);
      return quantity(backend.state.account(address, block.number)?.nonce ?? 0n);
    },
  });
}
