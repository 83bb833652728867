import type { RpcBackend } from "../../services/backend.ts";
import { defineMethod, required } from "../method.ts";
import { parseBlockHash, parseUint } from "../params.ts";
import { resolveBlockTarget } from "../resolveBlock.ts";
import { transactionAtIndex } from "./blockBody.ts";

/**
 * eth_getTransactionByBlockHashAndIndex(hash, index) → the transaction as
 * eth_getTransactionByHash renders it, null when the block or index does not exist.
 */
export function getTransactionByBlockHashAndIndex(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseBlockHash), required(parseUint)],
    reads: "block",
    handler: ([hash, index]) =>
      transactionAtIndex(
        backend,
        resolveBlockTarget(backend, { kind: "hash", hash, requireCanonical: false }),
        index,
      ),
  });
}
