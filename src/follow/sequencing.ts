// Base's sequencing rules for a follower (ordering, gaps, a new canonical block, reorgs, as
// base/base's `crates/execution/flashblocks` applies them; issue 27 item 3) as a state machine
// with no I/O: it is told of flashblocks, canonical blocks, the chain's tip and the time, and
// answers with the actions the follower executes (open / extend / clear the pending block) and
// a named event for every rule that fired.
//
// The pending block is one block: flashblocks 0..k of one build (payload id) whose parent is the
// canonical head here. A flashblock whose parent is not canonical here yet (the next block's
// index 0 comes before this block lands) waits in the early cache and is replayed when its
// parent lands. Invariant: pending, when there is one, is block head + 1 on head's hash.
import { equalBytes } from "../util/hex.ts";
import { EarlyCache, type Emit, sameTransactions } from "./earlyCache.ts";
import type { Flashblock } from "./flashblock.ts";
import type {
  CanonicalBlock,
  ClearReason,
  HeadRef,
  PendingSequence,
  SequencingAction,
  SequencingEvent,
  SequencingResult,
} from "./sequencingTypes.ts";

export type SequencingOptions = {
  /**
   * Pending more than this many blocks behind the chain's tip is dropped (base/node#1129,
   * base#4793), measured from the pending block itself (base#4916: not from an older one).
   */
  readonly maxPendingDepth: number;
  /** Early flashblocks are kept at most this many blocks ahead of the canonical head. */
  readonly maxCacheAheadBlocks: number;
  readonly maxCachedFlashblocks: number;
  /** Pending with no new flashblock for this long is dropped, and cached ones expire (0: never). */
  readonly maxPendingAgeMs: number;
};

export const DEFAULT_SEQUENCING_OPTIONS: SequencingOptions = {
  maxPendingDepth: 3,
  maxCacheAheadBlocks: 5,
  maxCachedFlashblocks: 128,
  maxPendingAgeMs: 30_000,
};

type MutablePending = {
  number: number;
  payloadId: PendingSequence["payloadId"];
  parent: HeadRef;
  base: PendingSequence["base"];
  flashblocks: Flashblock[];
  transactionHashes: Uint8Array[];
  updatedAt: number;
};

class Step {
  readonly actions: SequencingAction[] = [];
  readonly events: SequencingEvent[] = [];
  readonly emit: Emit = (e) => {
    this.events.push(e);
  };

  result(): SequencingResult {
    return { actions: this.actions, events: this.events };
  }
}

/** Index of the first pre-confirmed hash the canonical list lacks at that position, or -1. */
function firstDifference(pre: readonly Uint8Array[], canonical: readonly Uint8Array[]): number {
  for (let i = 0; i < pre.length; i++) {
    const c = canonical[i];
    if (c === undefined || !equalBytes(c, pre[i]!)) return i;
  }
  return -1;
}

export class Sequencing {
  readonly #opts: SequencingOptions;
  readonly #cache: EarlyCache;
  #head: HeadRef | undefined;
  #pending: MutablePending | undefined;
  /** The latest block number the stream showed, and the upstream's latest head. */
  #streamTip: number | undefined;
  #upstreamTip: number | undefined;

  constructor(opts: Partial<SequencingOptions> = {}) {
    this.#opts = { ...DEFAULT_SEQUENCING_OPTIONS, ...opts };
    this.#cache = new EarlyCache(this.#opts.maxCachedFlashblocks, this.#opts.maxCacheAheadBlocks);
  }

  /** The canonical head known here; undefined before the first canonical block. */
  get head(): HeadRef | undefined {
    return this.#head;
  }

  /** The pre-confirmed block; undefined = none (`pending` answers `latest`). A live view. */
  get pending(): PendingSequence | undefined {
    return this.#pending;
  }

  get cachedFlashblocks(): number {
    return this.#cache.size;
  }

  /** The chain's tip as far as anything here shows it. */
  get tip(): number | undefined {
    let tip = this.#head?.number;
    for (const t of [this.#streamTip, this.#upstreamTip])
      if (t !== undefined && (tip === undefined || t > tip)) tip = t;
    return tip;
  }

  /** A flashblock from the stream (`now`: when it arrived). */
  flashblock(fb: Flashblock, now: number): SequencingResult {
    const step = new Step();
    this.#streamTip = fb.blockNumber;
    const head = this.#head;
    const n = fb.blockNumber;
    if (head === undefined) {
      this.#cache.put(fb, now, undefined, "head-unknown", step.emit);
      return step.result();
    }
    if (n <= head.number) {
      step.emit({ name: "superseded", block: n, index: fb.index });
      return step.result();
    }
    const p = this.#pending;
    if (p !== undefined && n === p.number) {
      if (fb.payloadId === p.payloadId) {
        this.#continue(p, fb, now, step);
        return step.result();
      }
      step.emit({
        name: "payloadChanged",
        block: n,
        index: fb.index,
        payloadId: fb.payloadId,
        previous: p.payloadId,
      });
      // A new build of the block: its index 0 replaces ours; anything else is part of a build
      // whose start we missed.
      if (fb.index !== 0) {
        this.#clear("payload-changed", step);
        return step.result();
      }
    }
    if (n === head.number + 1) {
      if (fb.index === 0) {
        if (!equalBytes(fb.base!.parentHash, head.hash))
          this.#cache.put(fb, now, head, "parent-mismatch", step.emit);
        else if (this.#tooDeep(n, step)) this.#clearIfPending("depth-exceeded", step);
        else this.#open([fb], "stream", now, step);
      } else if (this.#cache.hasStart(n, fb.payloadId)) {
        this.#cache.put(fb, now, head, "parent-mismatch", step.emit);
      } else {
        step.emit({ name: "nonZeroFirst", block: n, index: fb.index });
      }
    } else {
      this.#cache.put(fb, now, head, "parent-not-canonical", step.emit);
    }
    this.#checkDepth(step);
    return step.result();
  }

  /**
   * A block became the canonical head here (imported and executed). Blocks are expected in
   * chain order; one at or below the current head, or whose parent is not the head, is a reorg.
   */
  canonical(block: CanonicalBlock, now: number): SequencingResult {
    const step = new Step();
    const prev = this.#head;
    if (prev !== undefined && prev.number === block.number && equalBytes(prev.hash, block.hash))
      return step.result();
    if (
      prev !== undefined &&
      (block.number <= prev.number ||
        (block.number === prev.number + 1 && !equalBytes(block.parentHash, prev.hash)))
    ) {
      step.emit({ name: "canonicalReorg", block: block.number, previous: prev.number });
    }
    this.#head = { number: block.number, hash: block.hash };
    const p = this.#pending;
    let reason: ClearReason | undefined;
    if (p !== undefined) {
      this.#pending = undefined;
      if (p.number === block.number) {
        const pre = p.transactionHashes;
        const diff = firstDifference(pre, block.transactionHashes);
        const counts = { preconfirmed: pre.length, canonical: block.transactionHashes.length };
        if (diff < 0) {
          step.emit({ name: "canonicalMatch", block: block.number, ...counts });
          reason = equalBytes(block.parentHash, p.parent.hash) ? "caught-up" : "canonical-reorg";
        } else {
          step.emit({
            name: "canonicalMismatch",
            block: block.number,
            ...counts,
            firstDifference: diff,
          });
          reason = "canonical-mismatch";
        }
      } else {
        reason = block.number < p.number ? "canonical-reorg" : "caught-up";
      }
    }
    this.#cache.prune(block.number, step.emit);
    this.#openFromCache(now, step);
    if (reason !== undefined && this.#pending === undefined)
      step.actions.push({ kind: "clear", reason });
    return step.result();
  }

  /** The upstream's latest block number (its newHeads), which may be ahead of the head here. */
  tipSeen(number: number): SequencingResult {
    const step = new Step();
    this.#upstreamTip = number;
    this.#checkDepth(step);
    return step.result();
  }

  /**
   * The follower could not apply `fb` (a transaction invalid on the parent state, or results
   * that disagree with the flashblock's roots): pending is dropped until the next index 0, as
   * for a gap. A report about a build that is no longer pending (actions run later than they
   * are decided) changes nothing.
   */
  executionFailed(fb: Flashblock): SequencingResult {
    const step = new Step();
    const p = this.#pending;
    if (p === undefined || p.number !== fb.blockNumber || p.payloadId !== fb.payloadId)
      return step.result();
    step.emit({ name: "executionFailed", block: fb.blockNumber, index: fb.index });
    this.#clear("execution-failed", step);
    return step.result();
  }

  /** Time passes: pending and cached flashblocks older than maxPendingAgeMs are dropped. */
  tick(now: number): SequencingResult {
    const step = new Step();
    const maxAge = this.#opts.maxPendingAgeMs;
    if (maxAge <= 0) return step.result();
    const p = this.#pending;
    if (p !== undefined && now - p.updatedAt > maxAge) {
      step.emit({ name: "stale", block: p.number, ageMs: now - p.updatedAt });
      this.#clear("stale", step);
    }
    this.#cache.expire(now - maxAge, step.emit);
    return step.result();
  }

  /** A flashblock of the pending block's own build. */
  #continue(p: MutablePending, fb: Flashblock, now: number, step: Step): void {
    const next = p.flashblocks.length;
    if (fb.index === next) {
      p.flashblocks.push(fb);
      for (const t of fb.diff.transactions) p.transactionHashes.push(t.hash);
      p.updatedAt = now;
      step.emit({
        name: "applied",
        block: p.number,
        index: fb.index,
        transactions: fb.diff.transactions.length,
      });
      step.actions.push({ kind: "extend", flashblock: fb });
    } else if (fb.index < next) {
      if (sameTransactions(p.flashblocks[fb.index]!, fb)) {
        step.emit({ name: "duplicate", block: p.number, index: fb.index });
      } else {
        step.emit({ name: "conflict", block: p.number, index: fb.index });
        this.#clear("conflict", step);
      }
    } else {
      step.emit({ name: "gap", block: p.number, index: fb.index, expected: next });
      this.#clear("gap", step);
    }
  }

  #open(chain: Flashblock[], from: "stream" | "cache", now: number, step: Step): void {
    const first = chain[0]!;
    const head = this.#head!;
    const base = first.base!;
    const transactionHashes: Uint8Array[] = [];
    for (const fb of chain) for (const t of fb.diff.transactions) transactionHashes.push(t.hash);
    this.#pending = {
      number: first.blockNumber,
      payloadId: first.payloadId,
      parent: head,
      base,
      // Its own array: the action keeps the list it was given while pending grows.
      flashblocks: [...chain],
      transactionHashes,
      updatedAt: now,
    };
    if (from === "cache") {
      step.emit({ name: "earlyApplied", block: first.blockNumber, flashblocks: chain.length });
    } else {
      const transactions = first.diff.transactions.length;
      step.emit({ name: "applied", block: first.blockNumber, index: 0, transactions });
    }
    step.actions.push({ kind: "open", parent: head, base, flashblocks: chain, from });
  }

  /** The next block from the cache, when it chains on the head and is not too far behind. */
  #openFromCache(now: number, step: Step): void {
    const head = this.#head!;
    const n = head.number + 1;
    if (!this.#cache.holds(n)) return;
    if (this.#tooDeep(n, step)) {
      this.#cache.dropBlock(n, "depth", step.emit);
      return;
    }
    const chain = this.#cache.take(head, step.emit);
    if (chain !== undefined) this.#open(chain, "cache", now, step);
  }

  #checkDepth(step: Step): void {
    const p = this.#pending;
    if (p !== undefined && this.#tooDeep(p.number, step)) this.#clear("depth-exceeded", step);
  }

  /** Whether block `n` is more than maxPendingDepth behind the tip (said as an event if so). */
  #tooDeep(n: number, step: Step): boolean {
    const tip = this.tip!;
    const maxDepth = this.#opts.maxPendingDepth;
    if (tip - n <= maxDepth) return false;
    step.emit({ name: "depthExceeded", block: n, tip, maxDepth });
    return true;
  }

  #clearIfPending(reason: ClearReason, step: Step): void {
    if (this.#pending !== undefined) this.#clear(reason, step);
  }

  #clear(reason: ClearReason, step: Step): void {
    this.#pending = undefined;
    step.actions.push({ kind: "clear", reason });
  }
}
