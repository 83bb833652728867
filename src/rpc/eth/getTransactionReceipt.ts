import type { RpcBackend } from "../backend.ts";
import { firstLogIndex, receiptJson } from "../format/receipt.ts";
import { defineMethod, RawJson, required } from "../method.ts";
import { parseHash32 } from "../params.ts";

/** eth_getTransactionReceipt(hash) → receipt or null. */
export function getTransactionReceipt(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseHash32)],
    handler: ([hash]) => {
      const location = backend.chain.transactionLocation(hash);
      if (location === undefined) return null;
      const { blockHash } = location;
      const block = backend.chain.receipts(location.number, blockHash);
      const receipt = block?.receipts[location.index];
      if (block === undefined || receipt === undefined) return null;
      return new RawJson(
        receiptJson(receipt, {
          blockHash,
          blockNumber: location.number,
          blockTimestamp: block.blockTimestamp,
          transactionIndex: location.index,
          firstLogIndex: firstLogIndex(block.receipts, location.index),
        }),
      );
    },
  });
}
