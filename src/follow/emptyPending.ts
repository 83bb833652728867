// "Nothing is pre-confirmed on the head" as an update readers apply (FlashblockUpdate.empty): the
// block after the head with no transaction, so `pending` answers what `latest` does, never null
// or an error (base#178), until a flashblock 0 on the head arrives.
import { createBlockHeaderFromRLP } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { KECCAK256_RLP } from "@ethereumjs/util";
import type { FlashblockUpdate } from "../pending/types.ts";
import type { ChainStore } from "../store/archive.ts";

const ZERO32 = new Uint8Array(32);

export function emptyPending(store: ChainStore, common: Common, head: number): FlashblockUpdate {
  const hash = store.canonicalHash(head);
  const rlp = hash === undefined ? undefined : store.headerRlp(head, hash);
  if (hash === undefined || rlp === undefined) throw new Error(`the archive has no block ${head}`);
  const h = createBlockHeaderFromRLP(rlp, {
    common,
    setHardfork: true,
    skipConsensusFormatValidation: true,
  });
  return {
    kind: "flashblock",
    empty: true,
    base: {
      number: head + 1,
      parentHash: hash,
      timestamp: h.timestamp,
      gasLimit: h.gasLimit,
      baseFeePerGas: h.baseFeePerGas === undefined ? 0n : h.calcNextBaseFee(),
      coinbase: h.coinbase.bytes,
      prevRandao: ZERO32,
      parentBeaconBlockRoot: ZERO32,
      extraData: new Uint8Array(0),
      blobGasPrice: 1n,
      excessBlobGas: 0n,
    },
    index: 0,
    transactions: [],
    receipts: [],
    diff: { accounts: [], storage: [], wiped: [], code: [] },
    gasUsed: 0n,
    blobGasUsed: 0n,
    logsBloom: new Uint8Array(256),
    receiptsRoot: KECCAK256_RLP,
    transactionsRoot: KECCAK256_RLP,
    wireJson: "",
    buildMs: 0,
    publishedAt: performance.timeOrigin + performance.now(),
  };
}
