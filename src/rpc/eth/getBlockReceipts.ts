import type { RpcBackend } from "../backend.ts";
import { blockReceiptsJson } from "../format/receipt.ts";
import { defineMethod, RawJson, required } from "../method.ts";
import { parseBlockSelector } from "../params.ts";
import { resolveBlockTarget } from "../resolveBlock.ts";
import { blockReceipts } from "./blockResult.ts";

/**
 * eth_getBlockReceipts(block) → receipts, [] for an empty block, null for an unknown one.
 * pending → the pre-confirmed receipts (block hash 32 zero bytes, as Base), or latest's.
 */
export function getBlockReceipts(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseBlockSelector)],
    handler: ([selector]) => {
      const receipts = blockReceipts(backend, resolveBlockTarget(backend, selector));
      return receipts === undefined ? null : new RawJson(blockReceiptsJson(receipts));
    },
  });
}
