// The block being built and one flashblock of it: the header fields so far (receipts root,
// bloom, gas), the new transactions and receipts, the state diff, and Base's wire JSON.
import { createBlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { KECCAK256_RLP, SHA256_NULL } from "@ethereumjs/util";
import type { BlockBuilder } from "@ethereumjs/vm";
import type { ReceiptRecord } from "../chain/types.ts";
import type {
  FlashblockUpdate,
  PendingBase,
  PendingTransaction,
  StateDiff,
} from "../pending/types.ts";
import { flashblockWireJson } from "./flashblockWire.ts";

const ZERO32 = new Uint8Array(32);

export type Building = {
  readonly builder: BlockBuilder;
  readonly base: PendingBase;
  readonly payloadId: string;
  /** The block's flashblock grid: flashblock i is due at openedAt + i × interval. */
  openedAt: number;
  readonly receipts: ReceiptRecord[];
  readonly transactions: PendingTransaction[];
  /** Executed since the last flashblock, published with the next one. */
  unpublished: PendingTransaction[];
  /** Blob transactions of the block in their network form (with the sidecar), by hash. */
  readonly sidecars: Map<string, Uint8Array>;
  index: number;
  /** Transaction and receipt tries, grown one entry per transaction (not rebuilt per flashblock). */
  readonly txTrie: MerklePatriciaTrie;
  readonly receiptTrie: MerklePatriciaTrie;
  /**
   * The partial header's hash at the last flashblock and how many transactions it covered: a
   * flashblock that adds none has the same header (an idle chain builds five a second).
   */
  partialHash?: { readonly transactions: number; readonly hash: Uint8Array };
};

function partialHeaderHash(
  b: Building,
  transactionsRoot: Uint8Array,
  receiptsRoot: Uint8Array,
  logsBloom: Uint8Array,
  gasUsed: bigint,
  common: Common,
): Uint8Array {
  if (b.partialHash?.transactions === b.transactions.length) return b.partialHash.hash;
  const hash = createBlockHeader(
    {
      parentHash: b.base.parentHash,
      coinbase: b.base.coinbase,
      stateRoot: ZERO32,
      transactionsTrie: transactionsRoot,
      receiptTrie: receiptsRoot,
      logsBloom,
      number: BigInt(b.base.number),
      gasLimit: b.base.gasLimit,
      gasUsed,
      timestamp: b.base.timestamp,
      mixHash: b.base.prevRandao,
      baseFeePerGas: b.base.baseFeePerGas,
      withdrawalsRoot: KECCAK256_RLP,
      blobGasUsed: b.builder.blobGasUsed,
      excessBlobGas: b.base.excessBlobGas,
      parentBeaconBlockRoot: b.base.parentBeaconBlockRoot,
      requestsHash: SHA256_NULL,
    },
    { common },
  ).hash();
  b.partialHash = { transactions: b.transactions.length, hash };
  return hash;
}

/** Flashblock `b.index`: `added` ran since the previous one and `diff` is their state change. */
export function assembleFlashblock(
  b: Building,
  added: PendingTransaction[],
  diff: StateDiff,
  started: number,
  common: Common,
): FlashblockUpdate {
  const receiptsRoot = b.receiptTrie.root();
  const transactionsRoot = b.txTrie.root();
  const logsBloom = b.builder.logsBloom();
  const gasUsed = b.builder.gasUsed;
  const newReceipts = b.receipts.slice(b.receipts.length - added.length);
  const wireJson = flashblockWireJson({
    payloadId: b.payloadId,
    index: b.index,
    base: b.base,
    transactions: added,
    receipts: newReceipts,
    balances: diff.accounts,
    receiptsRoot,
    logsBloom,
    gasUsed,
    blobGasUsed: b.builder.blobGasUsed,
    partialBlockHash: partialHeaderHash(
      b,
      transactionsRoot,
      receiptsRoot,
      logsBloom,
      gasUsed,
      common,
    ),
    withdrawalsRoot: KECCAK256_RLP,
  });
  return {
    kind: "flashblock",
    base: b.base,
    index: b.index,
    transactions: added,
    receipts: newReceipts,
    diff,
    gasUsed,
    blobGasUsed: b.builder.blobGasUsed,
    logsBloom,
    receiptsRoot,
    transactionsRoot,
    wireJson,
    buildMs: performance.now() - started,
    publishedAt: performance.timeOrigin + performance.now(),
  };
}
