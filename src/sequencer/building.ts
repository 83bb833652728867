// The block being built and one flashblock of it: the header fields so far (receipts root,
// bloom, gas), the new transactions and receipts, the state diff, and what Base's wire message
// adds to them (its payload id and partial block hash; the JSON is rendered where it is served).
import { createBlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { KECCAK256_RLP } from "@ethereumjs/util";
import type { BlockBuilder } from "@ethereumjs/vm";
import { ListTrie } from "../chain/listTrie.ts";
import { receiptRlp } from "../chain/rawEncoding.ts";
import type { ReceiptRecord } from "../chain/types.ts";
import type {
  FlashblockUpdate,
  PendingBase,
  PendingTransaction,
  StateDiff,
} from "../pending/types.ts";
import { bytesToHex } from "../util/hex.ts";

const ZERO32 = new Uint8Array(32);

/**
 * The block being built: its builder, header fields, tries, receipts and transactions, and its
 * flashblock grid. It changes only through the methods below, all run in the sequencer's queue.
 */
export class Building {
  private readonly receiptList: ReceiptRecord[] = [];
  private readonly transactionList: PendingTransaction[] = [];
  /** Blob transactions of the block in their network form (with the sidecar), by hash. */
  private readonly sidecarMap = new Map<string, Uint8Array>();
  /**
   * Transaction and receipt tries, grown one entry per transaction: each flashblock's roots hash
   * only what it added (listTrie.ts).
   */
  readonly txTrie = new ListTrie();
  readonly receiptTrie = new ListTrie();
  /** Executed since the last flashblock, published with the next one. */
  private unpublished: PendingTransaction[] = [];
  private flashblockIndex = 0;
  /** The block's flashblock grid: flashblock i is due at openedAt + i × interval. */
  private gridStart: number;
  /**
   * The partial header's hash at the last flashblock and how many transactions it covered: a
   * flashblock that adds none has the same header (an idle chain builds five a second).
   */
  private partialHash: { readonly transactions: number; readonly hash: Uint8Array } | undefined;

  constructor(
    readonly builder: BlockBuilder,
    readonly base: PendingBase,
    readonly payloadId: string,
    openedAt: number,
  ) {
    this.gridStart = openedAt;
  }

  get receipts(): readonly ReceiptRecord[] {
    return this.receiptList;
  }

  get transactions(): readonly PendingTransaction[] {
    return this.transactionList;
  }

  get sidecars(): ReadonlyMap<string, Uint8Array> {
    return this.sidecarMap;
  }

  /** The index of the newest flashblock (0: the opening one). */
  get index(): number {
    return this.flashblockIndex;
  }

  get openedAt(): number {
    return this.gridStart;
  }

  /** When the next flashblock is due on the grid. */
  nextDue(intervalMs: number): number {
    return this.gridStart + (this.flashblockIndex + 1) * intervalMs;
  }

  /** How many executed transactions wait for the next flashblock. */
  get unpublishedCount(): number {
    return this.unpublished.length;
  }

  /** Executed transactions, published with the next flashblock. */
  hold(added: readonly PendingTransaction[]): void {
    this.unpublished.push(...added);
  }

  /** What the next flashblock publishes so far; the waiting list starts empty again. */
  takeUnpublished(): PendingTransaction[] {
    const added = this.unpublished;
    this.unpublished = [];
    return added;
  }

  /** The next flashblock begins. */
  advance(): void {
    this.flashblockIndex++;
  }

  /** A rebuilt block goes on at a recorded flashblock's index. */
  resumeAt(index: number): void {
    this.flashblockIndex = index;
  }

  /** Moves the grid so that the next flashblock is due one interval after `now`. */
  regrid(now: number, intervalMs: number): void {
    this.gridStart = now - this.flashblockIndex * intervalMs;
  }

  /**
   * A transaction executed onto the block: its receipt, its trie entries and (a blob
   * transaction) its network form, kept while the block is open.
   */
  append(
    pending: PendingTransaction,
    receipt: ReceiptRecord,
    networkForm: Uint8Array | undefined,
  ): void {
    this.receiptList.push(receipt);
    if (networkForm !== undefined) this.sidecarMap.set(bytesToHex(pending.hash), networkForm);
    this.txTrie.push(pending.raw);
    this.receiptTrie.push(receiptRlp(receipt));
    this.transactionList.push(pending);
  }

  /** The hash of the header so far (zero state root), cached while no transaction is added. */
  partialHeaderHash(
    transactionsRoot: Uint8Array,
    receiptsRoot: Uint8Array,
    logsBloom: Uint8Array,
    gasUsed: bigint,
    common: Common,
  ): Uint8Array {
    if (this.partialHash?.transactions === this.transactionList.length)
      return this.partialHash.hash;
    const hash = createBlockHeader(
      {
        parentHash: this.base.parentHash,
        coinbase: this.base.coinbase,
        stateRoot: ZERO32,
        transactionsTrie: transactionsRoot,
        receiptTrie: receiptsRoot,
        logsBloom,
        number: BigInt(this.base.number),
        gasLimit: this.base.gasLimit,
        gasUsed,
        timestamp: this.base.timestamp,
        mixHash: this.base.prevRandao,
        baseFeePerGas: this.base.baseFeePerGas,
        withdrawalsRoot: KECCAK256_RLP,
        blobGasUsed: this.builder.blobGasUsed,
        excessBlobGas: this.base.excessBlobGas,
        parentBeaconBlockRoot: this.base.parentBeaconBlockRoot,
      },
      { common },
    ).hash();
    this.partialHash = { transactions: this.transactionList.length, hash };
    return hash;
  }
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
  const blockHash = b.partialHeaderHash(transactionsRoot, receiptsRoot, logsBloom, gasUsed, common);
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
    wire: { payloadId: b.payloadId, blockHash },
    buildMs: performance.now() - started,
    publishedAt: performance.timeOrigin + performance.now(),
  };
}
