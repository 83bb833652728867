import type { RpcBackend } from "../../services/backend.ts";
import { defineMethod, required } from "../method.ts";
import { parseBlockNumberOnly } from "../params.ts";
import { blockCount } from "./blockBody.ts";

/**
 * eth_getBlockTransactionCountByNumber(number|tag) → the block's transaction count, null for an
 * unknown block; pending → the pre-confirmed block's.
 */
export function getBlockTransactionCountByNumber(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseBlockNumberOnly)],
    reads: "block",
    handler: ([selector]) => blockCount(backend, selector, "transactions"),
  });
}
