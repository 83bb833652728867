// Where a publisher's flashblock updates continue the flashblock stream when it starts a term: a
// follower that takes the stream over from another (their positions are each their own), or a
// sequencer back from a NATS outage. A replica applies a flashblock of index > 0 only when its
// position is the last one's + 1 (updateConsumer.ts), so the new writer finds, among its own
// recent updates, the one that left pending where the stream's last update left it, publishes
// what came after it, and numbers them on from the stream's last position. When none matches (it
// is behind, or its pending differs), it starts at its next update that any replica applies
// whatever came before: a seal, or a flashblock 0, of a block after the stream's.
import { type ChainUpdate, updatePosition } from "../pending/types.ts";
import { equalBytes } from "../util/hex.ts";

/** What an update leaves the pending view at: its block, index and transactions. */
export type PendingMark = {
  readonly block: number;
  readonly index: number;
  readonly empty: boolean;
  readonly transactionsRoot: Uint8Array;
};

export function markOf(u: ChainUpdate): PendingMark {
  const fb = u.kind === "sealed" ? u.next : u;
  return {
    block: fb.base.number,
    index: fb.index,
    empty: fb.empty === true,
    transactionsRoot: fb.transactionsRoot,
  };
}

function sameMark(a: PendingMark, b: PendingMark): boolean {
  return (
    a.block === b.block &&
    a.index === b.index &&
    a.empty === b.empty &&
    equalBytes(a.transactionsRoot, b.transactionsRoot)
  );
}

/** An update a replica applies whatever it applied before: a seal, or a flashblock 0. */
function startsOver(u: ChainUpdate): boolean {
  return u.kind === "sealed" || u.index === 0;
}

/**
 * Whether a replica that applied the stream's last update (at `tail`; undefined: unknown) may be
 * handed `u` without the updates between: a seal or a flashblock 0 of a later block, or a
 * flashblock 0 of the same block when the stream's last one was a flashblock 0 too (another
 * payload of it). Never one that takes pending back to fewer flashblocks of the same block.
 */
function continuesFrom(u: ChainUpdate, tail: PendingMark | undefined): boolean {
  if (!startsOver(u)) return false;
  if (tail === undefined) return true;
  const mark = markOf(u);
  return mark.block > tail.block || (mark.block === tail.block && tail.index === 0);
}

/** The stream's last update, as a new term reads it. */
export type StreamTail = {
  /** Its position (Flashnode-Position). */
  readonly position: number;
  /** What it left pending at; undefined when it could not be read (a message cut short). */
  readonly mark: PendingMark | undefined;
};

/**
 * Decides, update by update, what a writer publishes and at which position. `tail` undefined: the
 * stream holds no update (everything is published as it is).
 */
export class Handover {
  /** Added to an own position to give the published one. */
  private offset = 0;
  private waitingFor: StreamTail | undefined;

  constructor(tail: StreamTail | undefined) {
    this.waitingFor = tail;
  }

  /** Whether the writer has not found where to continue yet. */
  get waiting(): boolean {
    return this.waitingFor !== undefined;
  }

  /**
   * The update as it is to be published (position renumbered), or undefined: not published (the
   * stream holds it already, or it is not where the stream can continue).
   */
  next(u: ChainUpdate): ChainUpdate | undefined {
    const tail = this.waitingFor;
    if (tail !== undefined) {
      const mark = markOf(u);
      if (tail.mark !== undefined && sameMark(mark, tail.mark)) {
        // The stream's last update is this one: what follows it continues it.
        this.offset = tail.position - updatePosition(u);
        this.waitingFor = undefined;
        return undefined;
      }
      if (!continuesFrom(u, tail.mark)) return undefined;
      this.offset = tail.position + 1 - updatePosition(u);
      this.waitingFor = undefined;
      // A seal of the block the stream's last update built on: replicas have that seal already,
      // only its flashblock 0 is news.
      if (u.kind === "sealed" && tail.mark !== undefined && mark.block === tail.mark.block)
        return renumbered(u.next, updatePosition(u) + this.offset);
    }
    return this.offset === 0 ? u : renumbered(u, updatePosition(u) + this.offset);
  }
}

/** `u` at position `position` (a seal's position is its next flashblock's). */
export function renumbered(u: ChainUpdate, position: number): ChainUpdate {
  if (u.kind === "flashblock") return { ...u, position };
  return { ...u, next: { ...u.next, position } };
}

/**
 * The updates of `recent` (oldest first, own positions) a new term publishes, renumbered, given the
 * stream's tail; the handover goes on with the updates that come later.
 */
export function resume(
  recent: readonly ChainUpdate[],
  tail: StreamTail | undefined,
): { readonly handover: Handover; readonly publish: ChainUpdate[] } {
  const handover = new Handover(tail);
  if (tail?.mark !== undefined) {
    // The newest own update that matches the tail: everything after it, nothing before.
    const mark = tail.mark;
    const at = recent.findLastIndex((u) => sameMark(markOf(u), mark));
    if (at >= 0) {
      const publish: ChainUpdate[] = [];
      for (const u of recent.slice(at)) {
        const out = handover.next(u);
        if (out !== undefined) publish.push(out);
      }
      return { handover, publish };
    }
  }
  const publish: ChainUpdate[] = [];
  for (const u of recent) {
    const out = handover.next(u);
    if (out !== undefined) publish.push(out);
  }
  return { handover, publish };
}
