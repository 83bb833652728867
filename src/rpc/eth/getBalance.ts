import { quantity } from "../../util/hex.ts";
import type { RpcBackend } from "../backend.ts";
import { defineMethod, optional, required } from "../method.ts";
import { parseAddress, parseBlockSelector } from "../params.ts";
import { resolveStateBlock } from "../resolveBlock.ts";

/** eth_getBalance(address, block = latest) → wei. */
export function getBalance(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseAddress), optional(parseBlockSelector)],
    handler: ([address, selector]) => {
      const block = resolveStateBlock(backend.chain, selector);
      return quantity(backend.state.account(address, block.number)?.balance ?? 0n);
    },
  });
}
