// The pre-confirmed block as RPC readers see it: an immutable snapshot per flashblock, so a
// reader always sees one consistent flashblock. Its state is a stack of layers, one per
// flashblock (pending/layerStack.ts); its transactions and receipts are appended to lists its
// snapshots share, each snapshot seeing its own prefix. A flashblock costs its own size to apply.
import type { ReceiptRecord } from "../chain/types.ts";
import { bytesToUnprefixedHex } from "../util/hex.ts";
import { LayerStack } from "./layerStack.ts";
import type { FlashblockUpdate, PendingBase, PendingTransaction } from "./types.ts";
import { layerOf } from "./updateLayers.ts";

/** A pre-confirmed block's environment and state: what a call worker keeps of it. */
export type PendingSnapshot = {
  readonly base: PendingBase;
  /** false: nothing is pre-confirmed (FlashblockUpdate.empty): `pending` is `latest`. */
  readonly preconfirmed: boolean;
  readonly index: number;
  /** Cumulative for the block so far. */
  readonly gasUsed: bigint;
  readonly blobGasUsed: bigint;
  readonly state: LayerStack;
};

/** A snapshot as it crosses to a call worker: its layers' shared memory, no copy of them. */
export type SharedPendingSnapshot = Omit<PendingSnapshot, "state"> & {
  /** Newest first. */
  readonly layers: readonly ArrayBufferLike[];
};

export function shareSnapshot(p: PendingSnapshot): SharedPendingSnapshot {
  return {
    base: p.base,
    preconfirmed: p.preconfirmed,
    index: p.index,
    gasUsed: p.gasUsed,
    blobGasUsed: p.blobGasUsed,
    layers: p.state.buffers(),
  };
}

export function sharedSnapshot(s: SharedPendingSnapshot): PendingSnapshot {
  return {
    base: s.base,
    preconfirmed: s.preconfirmed,
    index: s.index,
    gasUsed: s.gasUsed,
    blobGasUsed: s.blobGasUsed,
    state: LayerStack.fromBuffers(s.layers),
  };
}

/** A block's transactions and receipts so far, appended to and never changed. */
class BlockLists {
  readonly transactions: PendingTransaction[] = [];
  readonly receipts: ReceiptRecord[] = [];
  /** Transaction hash (hex, no prefix) → position. */
  readonly positions = new Map<string, number>();

  /** Lists to append to after their first `count`: these, unless a snapshot went on from there. */
  from(count: number): BlockLists {
    if (this.transactions.length === count) return this;
    const copy = new BlockLists();
    copy.append(this.transactions.slice(0, count), this.receipts.slice(0, count));
    return copy;
  }

  append(transactions: readonly PendingTransaction[], receipts: readonly ReceiptRecord[]): void {
    for (const t of transactions) {
      this.positions.set(bytesToUnprefixedHex(t.hash), this.transactions.length);
      this.transactions.push(t);
    }
    for (const r of receipts) this.receipts.push(r);
  }
}

type PendingFields = Omit<PendingSnapshot, "state"> & {
  readonly state: LayerStack;
  readonly logsBloom: Uint8Array;
  readonly receiptsRoot: Uint8Array;
  readonly transactionsRoot: Uint8Array;
  readonly updatedAt: number;
};

export class PendingBlock implements PendingSnapshot {
  readonly base: PendingBase;
  readonly preconfirmed: boolean;
  readonly index: number;
  readonly gasUsed: bigint;
  readonly blobGasUsed: bigint;
  readonly state: LayerStack;
  readonly logsBloom: Uint8Array;
  readonly receiptsRoot: Uint8Array;
  readonly transactionsRoot: Uint8Array;
  /** When the newest flashblock of this block was published (epoch ms). */
  readonly updatedAt: number;
  private transactionList: readonly PendingTransaction[] | undefined;
  private receiptList: readonly ReceiptRecord[] | undefined;

  private constructor(
    fields: PendingFields,
    private readonly lists: BlockLists,
    /** Transactions (and receipts) in this snapshot. */
    readonly transactionCount: number,
    /** Logs of its receipts: the index the next flashblock's first log takes. */
    readonly logCount: number,
  ) {
    this.base = fields.base;
    this.preconfirmed = fields.preconfirmed;
    this.index = fields.index;
    this.gasUsed = fields.gasUsed;
    this.blobGasUsed = fields.blobGasUsed;
    this.state = fields.state;
    this.logsBloom = fields.logsBloom;
    this.receiptsRoot = fields.receiptsRoot;
    this.transactionsRoot = fields.transactionsRoot;
    this.updatedAt = fields.updatedAt;
  }

  /** Its transactions, listed on first use (a reader asking for the block pays for its size). */
  get transactions(): readonly PendingTransaction[] {
    this.transactionList ??= this.lists.transactions.slice(0, this.transactionCount);
    return this.transactionList;
  }

  get receipts(): readonly ReceiptRecord[] {
    this.receiptList ??= this.lists.receipts.slice(0, this.transactionCount);
    return this.receiptList;
  }

  static after(previous: PendingBlock | undefined, u: FlashblockUpdate): PendingBlock {
    const fresh = previous === undefined || previous.base.number !== u.base.number || u.index === 0;
    const layer = layerOf(u);
    const state = fresh ? LayerStack.EMPTY.with(layer) : previous.state.with(layer);
    const lists = fresh ? new BlockLists() : previous.lists.from(previous.transactionCount);
    lists.append(u.transactions, u.receipts);
    let logs = fresh ? 0 : previous.logCount;
    for (const r of u.receipts) logs += r.logs.length;
    return new PendingBlock(
      {
        base: u.base,
        preconfirmed: u.empty !== true,
        index: u.index,
        gasUsed: u.gasUsed,
        blobGasUsed: u.blobGasUsed,
        state,
        logsBloom: u.logsBloom,
        receiptsRoot: u.receiptsRoot,
        transactionsRoot: u.transactionsRoot,
        updatedAt: u.publishedAt,
      },
      lists,
      (fresh ? 0 : previous.transactionCount) + u.transactions.length,
      logs,
    );
  }

  /** The transaction's position in the block, if this snapshot has it. */
  transactionIndex(hash: Uint8Array): number | undefined {
    const i = this.lists.positions.get(bytesToUnprefixedHex(hash));
    return i !== undefined && i < this.transactionCount ? i : undefined;
  }
}

/** The snapshot after one more flashblock; a flashblock 0 starts a new block. */
export function applyFlashblock(
  previous: PendingBlock | undefined,
  u: FlashblockUpdate,
): PendingBlock {
  return PendingBlock.after(previous, u);
}
