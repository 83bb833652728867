import type { RpcBackend } from "../backend.ts";
import { blockReceiptsJson } from "../format/receipt.ts";
import { defineMethod, RawJson, required } from "../method.ts";
import { parseBlockSelector } from "../params.ts";
import { resolveBlock } from "../resolveBlock.ts";

/** eth_getBlockReceipts(block) → receipts, [] for an empty block, null for an unknown one. */
export function getBlockReceipts(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseBlockSelector)],
    handler: ([selector]) => {
      const block = resolveBlock(backend.chain, selector);
      if (block === undefined) return null;
      const receipts = backend.chain.receipts(block.number, block.hash);
      if (receipts === undefined) return null;
      return new RawJson(blockReceiptsJson(receipts));
    },
  });
}
