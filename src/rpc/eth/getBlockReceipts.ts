import type { RpcBackend } from "../../services/backend.ts";
import { blockReceiptsJson } from "../format/receipt.ts";
import { ReceiptsJsonCache } from "../format/receiptsCache.ts";
import { defineMethod, RawJson, RawJsonBytes, required } from "../method.ts";
import { parseBlockSelector } from "../params.ts";
import { resolveBlockTarget } from "../resolveBlock.ts";
import { blockReceipts } from "./blockResult.ts";

/**
 * eth_getBlockReceipts(block) → receipts, [] for an empty block, null for an unknown one.
 * pending → the pre-confirmed receipts (block hash 32 zero bytes, as Base), or latest's.
 */
export function getBlockReceipts(backend: RpcBackend) {
  const cache = new ReceiptsJsonCache();
  return defineMethod({
    params: [required(parseBlockSelector)],
    reads: "block",
    handler: ([selector]) => {
      const target = resolveBlockTarget(backend, selector);
      const render = () => {
        const receipts = blockReceipts(backend, target);
        return receipts === undefined ? undefined : blockReceiptsJson(receipts);
      };
      // Sealed blocks are immutable: rendered once. The pending block changes every flashblock.
      if (target?.kind === "sealed") {
        const bytes = cache.get(target.hash, render);
        return bytes === undefined ? null : new RawJsonBytes(bytes);
      }
      const json = render();
      return json === undefined ? null : new RawJson(json);
    },
  });
}
