// Flashblocks that arrived before their parent block is canonical here: the stream runs ahead
// of the chain (flashblock 0 of N+1 comes ~250 ms before block N on Base, base#826), so they
// wait here and are replayed when the parent lands. Bounded by count and by distance from the
// canonical head (Base keeps up to 5 blocks ahead), and by age when the caller asks.
import { equalBytes } from "../util/hex.ts";
import type { Flashblock } from "./flashblock.ts";
import type { CacheReason, EvictReason, HeadRef, SequencingEvent } from "./sequencingTypes.ts";

type Entry = { readonly fb: Flashblock; readonly receivedAt: number };

export type Emit = (event: SequencingEvent) => void;

export function sameTransactions(a: Flashblock, b: Flashblock): boolean {
  const x = a.diff.transactions;
  const y = b.diff.transactions;
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (!equalBytes(x[i]!.hash, y[i]!.hash)) return false;
  return true;
}

export class EarlyCache {
  /** Block number → index → the latest flashblock received for it. */
  readonly #blocks = new Map<number, Map<number, Entry>>();
  #size = 0;

  constructor(
    private readonly maxFlashblocks: number,
    private readonly maxAheadBlocks: number,
  ) {}

  get size(): number {
    return this.#size;
  }

  /** Whether anything of block `number` waits here. */
  holds(number: number): boolean {
    return this.#blocks.has(number);
  }

  /** Whether index 0 of this build of block `number` waits here. */
  hasStart(number: number, payloadId: string): boolean {
    return this.#blocks.get(number)?.get(0)?.fb.payloadId === payloadId;
  }

  put(
    fb: Flashblock,
    receivedAt: number,
    head: HeadRef | undefined,
    reason: CacheReason,
    emit: Emit,
  ): void {
    const n = fb.blockNumber;
    if (head !== undefined && n - head.number > this.maxAheadBlocks) {
      emit({ name: "earlyEvicted", block: n, flashblocks: 1, reason: "distance" });
      return;
    }
    // No head yet: only the newest blocks can be of use once one lands.
    if (head === undefined) this.#dropWhere((b) => b < n - this.maxAheadBlocks, "distance", emit);
    let block = this.#blocks.get(n);
    if (block === undefined) {
      block = new Map();
      this.#blocks.set(n, block);
    }
    const old = block.get(fb.index);
    if (old !== undefined && old.fb.payloadId === fb.payloadId && sameTransactions(old.fb, fb)) {
      emit({ name: "duplicate", block: n, index: fb.index });
      return;
    }
    if (old === undefined) this.#size++;
    block.set(fb.index, { fb, receivedAt });
    emit({ name: "earlyCached", block: n, index: fb.index, reason });
    while (this.#size > this.maxFlashblocks) this.#evictFarthest(emit);
  }

  /** Drops the blocks at or below `number` (they are canonical now). */
  prune(number: number, emit: Emit): void {
    this.#dropWhere((b) => b <= number, "superseded", emit);
  }

  /** Drops what was received before `cutoff`. */
  expire(cutoff: number, emit: Emit): void {
    for (const [n, block] of this.#blocks) {
      let dropped = 0;
      for (const [index, entry] of block) {
        if (entry.receivedAt >= cutoff) continue;
        block.delete(index);
        dropped++;
      }
      this.#size -= dropped;
      if (block.size === 0) this.#blocks.delete(n);
      if (dropped > 0)
        emit({ name: "earlyEvicted", block: n, flashblocks: dropped, reason: "stale" });
    }
  }

  dropBlock(number: number, reason: EvictReason, emit: Emit): void {
    this.#dropWhere((b) => b === number, reason, emit);
  }

  /**
   * The block after `head`, if its index 0 waits here with `head` as parent: flashblocks 0..k of
   * that build, up to the first hole, taken out (what follows a hole is dropped). Entries on
   * another parent stay: the head may yet be reorged onto it.
   */
  take(head: HeadRef, emit: Emit): Flashblock[] | undefined {
    const n = head.number + 1;
    const block = this.#blocks.get(n);
    if (block === undefined) return undefined;
    const first = block.get(0)?.fb;
    if (first !== undefined && !equalBytes(first.base!.parentHash, head.hash)) return undefined;
    const chain: Flashblock[] = [];
    if (first !== undefined) {
      for (let i = 0; ; i++) {
        const fb = block.get(i)?.fb;
        if (fb === undefined || fb.payloadId !== first.payloadId) break;
        chain.push(fb);
      }
    }
    this.#blocks.delete(n);
    this.#size -= block.size;
    const left = block.size - chain.length;
    if (left > 0) emit({ name: "earlyEvicted", block: n, flashblocks: left, reason: "unchained" });
    return chain.length > 0 ? chain : undefined;
  }

  #dropWhere(test: (block: number) => boolean, reason: EvictReason, emit: Emit): void {
    for (const [n, block] of this.#blocks) {
      if (!test(n)) continue;
      this.#blocks.delete(n);
      this.#size -= block.size;
      emit({ name: "earlyEvicted", block: n, flashblocks: block.size, reason });
    }
  }

  /** The last flashblock of the farthest block: the one needed last. */
  #evictFarthest(emit: Emit): void {
    let far = -1;
    for (const n of this.#blocks.keys()) if (n > far) far = n;
    const block = this.#blocks.get(far)!;
    let last = -1;
    for (const i of block.keys()) if (i > last) last = i;
    block.delete(last);
    this.#size--;
    if (block.size === 0) this.#blocks.delete(far);
    emit({ name: "earlyEvicted", block: far, flashblocks: 1, reason: "capacity" });
  }
}
