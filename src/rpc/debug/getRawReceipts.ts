import type { ReceiptRecord } from "../../chain/types.ts";
import type { RpcBackend } from "../../services/backend.ts";
import { array, data } from "../../util/json.ts";
import { defineMethod, RawJson, required } from "../method.ts";
import { parseBlockSelector } from "../params.ts";
import { resolveRawTarget } from "./rawTarget.ts";

/**
 * debug_getRawReceipts(block) → each receipt's consensus encoding (typed: type byte ‖ RLP), the
 * leaves of the receipts trie. As geth: a number past the head → null, an unknown hash → [].
 * pending → the pre-confirmed receipts.
 */
export function getRawReceipts(backend: RpcBackend) {
  const encode = (receipts: readonly ReceiptRecord[]) =>
    new RawJson(array(receipts, (r) => data(backend.decoder.receiptRlp(r))));
  return defineMethod({
    params: [required(parseBlockSelector)],
    reads: "block",
    handler: ([selector]) => {
      const target = resolveRawTarget(backend, selector);
      if (target === undefined) return null;
      if (target.kind === "pending") return encode(target.block.receipts);
      if (target.kind === "unknownHash") return encode([]);
      return encode(backend.chain.receipts(target.number, target.hash)?.receipts ?? []);
    },
  });
}
