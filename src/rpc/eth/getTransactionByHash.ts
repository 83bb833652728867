import type { RpcBackend } from "../backend.ts";
import { transactionJson } from "../format/block.ts";
import { defineMethod, RawJson, required } from "../method.ts";
import { parseHash32 } from "../params.ts";

/** eth_getTransactionByHash(hash) → transaction or null. */
export function getTransactionByHash(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseHash32)],
    handler: ([hash]) => {
      const location = backend.chain.transactionLocation(hash);
      if (location === undefined) return null;
      const { blockHash } = location;
      const headerRlp = backend.chain.headerRlp(location.number, blockHash);
      const bodyRlp = backend.chain.bodyRlp(location.number, blockHash);
      const receipts = backend.chain.receipts(location.number, blockHash);
      if (headerRlp === undefined || bodyRlp === undefined || receipts === undefined) return null;
      const view = backend.decoder.block(headerRlp, bodyRlp);
      const tx = view.transactions[location.index];
      const from = receipts.receipts[location.index]?.from;
      if (tx === undefined || from === undefined) return null;
      return new RawJson(
        transactionJson(tx, {
          blockHash,
          blockNumber: view.header.number,
          blockTimestamp: view.header.timestamp,
          baseFeePerGas: view.header.baseFeePerGas,
          index: location.index,
          from,
        }),
      );
    },
  });
}
