import type { RpcBackend } from "../../services/backend.ts";
import { defineMethod, required } from "../method.ts";
import { parseBlockNumberOnly, parseUint } from "../params.ts";
import { resolveBlockTarget } from "../resolveBlock.ts";
import { transactionAtIndex } from "./blockBody.ts";

/**
 * eth_getTransactionByBlockNumberAndIndex(number|tag, index) → the transaction as
 * eth_getTransactionByHash renders it, null when the block or index does not exist; pending →
 * the pre-confirmed block's (block hash 32 zero bytes).
 */
export function getTransactionByBlockNumberAndIndex(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseBlockNumberOnly), required(parseUint)],
    reads: "block",
    handler: ([selector, index]) =>
      transactionAtIndex(backend, resolveBlockTarget(backend, selector), index),
  });
}
