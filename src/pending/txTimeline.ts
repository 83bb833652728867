// What a node following the chain stream remembers of recent pre-confirmations, for the live page
// (GET /ui) and the flashnode_* methods: per transaction, when the sequencer's intake took it,
// when its flashblock was published and when its block was sealed; per flashblock, its size and
// publication time; the send → pre-confirmed latencies and the flashblock intervals of the last
// minute. Every figure is the sequencer's own (times from its clock, carried in the stream), so
// each RPC process and each replica shows the same numbers. Bounded: the newest transactions,
// blocks and samples only.
import { bytesToHex } from "../util/hex.ts";
import type { FlashblockUpdate } from "./types.ts";

/** OP-stack deposit transactions (type 0x7e): in a block, but sent by no client. */
export const DEPOSIT_TX_TYPE = 0x7e;

export type TxTimes = {
  /** 0x-hex. */
  readonly hash: string;
  readonly blockNumber: number;
  readonly flashblockIndex: number;
  readonly transactionIndex: number;
  readonly deposit: boolean;
  /** Epoch ms; undefined when no client sent it through this sequencer's intake. */
  readonly receivedAt: number | undefined;
  /** When its flashblock was published (epoch ms). */
  readonly preconfirmedAt: number;
  sealedAt: number | undefined;
  blockHash: string | undefined;
};

export type FlashblockSummary = {
  readonly index: number;
  readonly transactions: number;
  readonly deposits: number;
  /** Cumulative for the block. */
  readonly gasUsed: bigint;
  readonly publishedAt: number;
};

export type BlockSummary = {
  readonly number: number;
  /** The newest ones (at most `flashblocksPerBlock`: a long block time makes thousands). */
  readonly flashblocks: FlashblockSummary[];
  /** Flashblocks and transactions seen, all of them. */
  flashblockCount: number;
  transactionCount: number;
  hash: string | undefined;
  sealedAt: number | undefined;
};

/** [publishedAt, latency ms, 0x-hex hash]: one pre-confirmed transaction. */
export type LatencySample = readonly [at: number, ms: number, hash: string];
/** [publishedAt, ms since the previous slot's flashblock]. */
export type IntervalSample = readonly [at: number, ms: number];

export type TimelineLimits = {
  /** Transactions whose times are kept (the newest). */
  readonly transactions: number;
  /** Blocks whose flashblocks are kept (the newest, the pending one included). */
  readonly blocks: number;
  /** Flashblocks kept per block (the newest). */
  readonly flashblocksPerBlock: number;
  /** How far back latency and interval samples go. */
  readonly windowMs: number;
  /** At most this many latency samples within the window (the newest). */
  readonly samples: number;
};

export const DEFAULT_TIMELINE_LIMITS: TimelineLimits = {
  transactions: 10_000,
  blocks: 12,
  flashblocksPerBlock: 64,
  windowMs: 60_000,
  samples: 20_000,
};

/** The reading side, what RPC methods see. */
export type TimelineReader = {
  readonly limits: TimelineLimits;
  transaction(hash: string): TxTimes | undefined;
  /** Samples published after `since` (epoch ms), within the window ending `now`. */
  latency(since: number, now: number): LatencySample[];
  intervals(since: number, now: number): IntervalSample[];
  /** The kept blocks, newest first. */
  blocks(): readonly BlockSummary[];
};

export class TxTimeline implements TimelineReader {
  readonly limits: TimelineLimits;
  private readonly txs = new Map<string, TxTimes>();
  private readonly blockList: BlockSummary[] = [];
  private readonly latencies: LatencySample[] = [];
  private readonly intervalList: IntervalSample[] = [];
  /** The previous slot's flashblock (index ≥ 1): index 0 is published with the seal, off the grid. */
  private lastSlotAt: number | undefined;

  constructor(limits: Partial<TimelineLimits> = {}) {
    this.limits = { ...DEFAULT_TIMELINE_LIMITS, ...limits };
  }

  /** `firstIndex`: the block position of the flashblock's first transaction. */
  flashblock(u: FlashblockUpdate, firstIndex?: number): void {
    const at = u.publishedAt;
    let block = this.blockList[0];
    if (block === undefined || block.number !== u.base.number) {
      block = {
        number: u.base.number,
        flashblocks: [],
        flashblockCount: 0,
        transactionCount: 0,
        hash: undefined,
        sealedAt: undefined,
      };
      this.blockList.unshift(block);
      if (this.blockList.length > this.limits.blocks) this.blockList.pop();
    }
    let deposits = 0;
    let position = firstIndex ?? block.transactionCount;
    for (const t of u.transactions) {
      const hash = bytesToHex(t.hash);
      const deposit = t.raw[0] === DEPOSIT_TX_TYPE;
      if (deposit) deposits++;
      this.remember({
        hash,
        blockNumber: u.base.number,
        flashblockIndex: u.index,
        transactionIndex: position++,
        deposit,
        receivedAt: t.receivedAt,
        preconfirmedAt: at,
        sealedAt: undefined,
        blockHash: undefined,
      });
      if (t.receivedAt !== undefined) this.latencies.push([at, at - t.receivedAt, hash]);
    }
    block.transactionCount += u.transactions.length;
    block.flashblockCount++;
    block.flashblocks.push({
      index: u.index,
      transactions: u.transactions.length,
      deposits,
      gasUsed: u.gasUsed,
      publishedAt: at,
    });
    if (block.flashblocks.length > this.limits.flashblocksPerBlock) block.flashblocks.shift();
    if (u.index > 0) {
      if (this.lastSlotAt !== undefined) this.intervalList.push([at, at - this.lastSlotAt]);
      this.lastSlotAt = at;
    }
    this.trim(at);
  }

  sealed(number: number, hash: Uint8Array, sealedAt: number): void {
    const blockHash = bytesToHex(hash);
    const block = this.blockList.find((b) => b.number === number);
    if (block !== undefined) {
      block.hash = blockHash;
      block.sealedAt = sealedAt;
    }
    // The kept transactions of that block: bounded by what is kept, not by the block's size.
    for (const t of this.txs.values()) {
      if (t.blockNumber !== number) continue;
      t.sealedAt = sealedAt;
      t.blockHash = blockHash;
    }
  }

  transaction(hash: string): TxTimes | undefined {
    return this.txs.get(hash.toLowerCase());
  }

  latency(since: number, now: number): LatencySample[] {
    const from = Math.max(since, now - this.limits.windowMs);
    return this.latencies.filter((s) => s[0] > from);
  }

  intervals(since: number, now: number): IntervalSample[] {
    const from = Math.max(since, now - this.limits.windowMs);
    return this.intervalList.filter((s) => s[0] > from);
  }

  blocks(): readonly BlockSummary[] {
    return this.blockList;
  }

  private remember(t: TxTimes): void {
    this.txs.delete(t.hash);
    this.txs.set(t.hash, t);
    // A Map iterates in insertion order: the first key is the oldest.
    while (this.txs.size > this.limits.transactions) {
      const oldest = this.txs.keys().next().value;
      if (oldest === undefined) break;
      this.txs.delete(oldest);
    }
  }

  private trim(now: number): void {
    const from = now - this.limits.windowMs;
    dropWhile(this.latencies, (s) => s[0] <= from);
    if (this.latencies.length > this.limits.samples)
      this.latencies.splice(0, this.latencies.length - this.limits.samples);
    dropWhile(this.intervalList, (s) => s[0] <= from);
  }
}

/** Removes the leading elements that match (samples are in time order). */
function dropWhile<T>(list: T[], old: (v: T) => boolean): void {
  let n = 0;
  while (n < list.length && old(list[n]!)) n++;
  if (n > 0) list.splice(0, n);
}
