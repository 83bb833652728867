import type { RpcBackend } from "../../services/backend.ts";
import { quantity } from "../../util/hex.ts";
import { defineMethod, optional, required } from "../method.ts";
import { parseAddress, parseBlockSelector } from "../params.ts";
import { resolveState } from "../resolveBlock.ts";

/** eth_getBalance(address, block = latest) → wei. */
export function getBalance(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseAddress), optional(parseBlockSelector)],
    reads: "state",
    handler: ([address, selector]) => {
      const state = resolveState(backend, selector);
      return quantity(state.account(address)?.balance ?? 0n);
    },
  });
}
