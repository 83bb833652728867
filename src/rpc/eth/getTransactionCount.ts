import type { RpcBackend } from "../../services/backend.ts";
import { quantity } from "../../util/hex.ts";
import { defineMethod, optional, required } from "../method.ts";
import { parseAddress, parseBlockSelector } from "../params.ts";
import { resolveState } from "../resolveBlock.ts";

/** eth_getTransactionCount(address, block = latest) → nonce. */
export function getTransactionCount(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseAddress), optional(parseBlockSelector)],
    reads: "state",
    handler: ([address, selector]) => {
      const state = resolveState(backend, selector);
      const nonce = state.account(address)?.nonce ?? 0n;
      // Like geth's pool nonce: transactions accepted but not yet pre-confirmed count too.
      const pooled = state.pending ? backend.transactions?.poolNonce(address) : undefined;
      return quantity(pooled !== undefined && pooled > nonce ? pooled : nonce);
    },
  });
}
