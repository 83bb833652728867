import type { TransactionView } from "../../chain/blockView.ts";
import type { RpcBackend } from "../../services/backend.ts";
import { transactionJson } from "../format/block.ts";
import { defineMethod, RawJson, required } from "../method.ts";
import { parseHash32 } from "../params.ts";
import { locateTransaction } from "./locateTransaction.ts";

/** eth_getTransactionByHash(hash) → transaction (sealed, else pre-confirmed) or null. */
export function getTransactionByHash(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseHash32)],
    reads: "transaction",
    handler: ([hash]) => {
      const found = locateTransaction(backend, hash);
      if (found === undefined) return null;
      const from = found.receipts.receipts[found.index]?.from;
      let tx: TransactionView | undefined;
      let baseFee: bigint | undefined;
      if (found.target.kind === "pending") {
        const raw = found.target.block.transactions[found.index]?.raw;
        tx = raw === undefined ? undefined : backend.decoder.transaction(raw);
        baseFee = found.target.block.base.baseFeePerGas;
      } else {
        const headerRlp = backend.chain.headerRlp(found.target.number, found.target.hash);
        const bodyRlp = backend.chain.bodyRlp(found.target.number, found.target.hash);
        if (headerRlp === undefined || bodyRlp === undefined) return null;
        const view = backend.decoder.block(headerRlp, bodyRlp);
        tx = view.transactions[found.index];
        baseFee = view.header.baseFeePerGas;
      }
      if (tx === undefined || from === undefined) return null;
      return new RawJson(
        transactionJson(tx, {
          blockHash: found.receipts.blockHash,
          blockNumber: BigInt(found.receipts.blockNumber),
          blockTimestamp: found.receipts.blockTimestamp,
          baseFeePerGas: baseFee,
          index: found.index,
          from,
          op: found.receipts.receipts[found.index]?.op,
        }),
      );
    },
  });
}
