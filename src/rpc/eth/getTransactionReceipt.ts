import type { RpcBackend } from "../../services/backend.ts";
import { firstLogIndex, receiptJson } from "../format/receipt.ts";
import { defineMethod, RawJson, required } from "../method.ts";
import { parseHash32 } from "../params.ts";
import { locateTransaction } from "./locateTransaction.ts";

/** eth_getTransactionReceipt(hash) → receipt (sealed, else pre-confirmed) or null. */
export function getTransactionReceipt(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseHash32)],
    reads: "transaction",
    handler: ([hash]) => {
      const found = locateTransaction(backend, hash);
      const receipt = found?.receipts.receipts[found.index];
      if (found === undefined || receipt === undefined) return null;
      const block = found.receipts;
      return new RawJson(
        receiptJson(receipt, {
          blockHash: block.blockHash,
          blockNumber: block.blockNumber,
          blockTimestamp: block.blockTimestamp,
          transactionIndex: found.index,
          firstLogIndex: firstLogIndex(block.receipts, found.index),
        }),
      );
    },
  });
}
