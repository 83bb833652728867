// What the sequencing state machine (sequencing.ts) takes in and gives out: the canonical
// blocks it hears of, the pending block it keeps, the actions the follower executes and the
// named events every rule firing produces (one metric label and one log line each).
import type { Hex } from "../util/hex.ts";
import type { Flashblock, FlashblockBase } from "./flashblock.ts";

export type HeadRef = { readonly number: number; readonly hash: Uint8Array };

/** A block of the canonical chain as the follower imported it (executed and checked). */
export type CanonicalBlock = {
  readonly number: number;
  readonly hash: Uint8Array;
  readonly parentHash: Uint8Array;
  /** In block order. */
  readonly transactionHashes: readonly Uint8Array[];
};

/**
 * The block being pre-confirmed: flashblocks 0..k of one build (one payload id), contiguous,
 * on the canonical head (`parent`). Never a block with a hole.
 */
export type PendingSequence = {
  readonly number: number;
  readonly payloadId: Hex;
  readonly parent: HeadRef;
  readonly base: FlashblockBase;
  readonly flashblocks: readonly Flashblock[];
  /** Every transaction of the flashblocks so far, in order. */
  readonly transactionHashes: readonly Uint8Array[];
  /** When the last flashblock was applied (the caller's clock). */
  readonly updatedAt: number;
};

/** Why pending went back to the canonical head. */
export type ClearReason =
  /** A flashblock index was skipped. */
  | "gap"
  /** Another flashblock for an index already applied (equivocation). */
  | "conflict"
  /** A flashblock of another build of the same block, without its index 0. */
  | "payload-changed"
  /** The pending block became canonical (or the head moved past it). */
  | "caught-up"
  /** It became canonical without a transaction it pre-confirmed, or with another order. */
  | "canonical-mismatch"
  /** The canonical block under pending was replaced. */
  | "canonical-reorg"
  /** Pending fell more than maxPendingDepth blocks behind the chain's tip. */
  | "depth-exceeded"
  /** No flashblock for maxPendingAgeMs. */
  | "stale"
  /** The follower could not apply a flashblock. */
  | "execution-failed";

/**
 * What the follower does, in order. Today every input yields at most one action.
 * - open: drop any pending block; start one on `parent` (the canonical head, whose state the
 *   transactions run on) in the block context of `base`, applying `flashblocks` in order (the
 *   first is index 0; from the early cache there may be several).
 * - extend: apply one more flashblock on top of the pending block (earlier results reused).
 * - clear: no pending block: `pending` answers what `latest` answers.
 */
export type SequencingAction =
  | {
      readonly kind: "open";
      readonly parent: HeadRef;
      readonly base: FlashblockBase;
      readonly flashblocks: readonly Flashblock[];
      readonly from: "stream" | "cache";
    }
  | { readonly kind: "extend"; readonly flashblock: Flashblock }
  | { readonly kind: "clear"; readonly reason: ClearReason };

export type EvictReason =
  /** Its block became canonical before its parent did here. */
  | "superseded"
  /** The cache held maxCachedFlashblocks; the farthest ahead goes first. */
  | "capacity"
  /** More than maxCacheAheadBlocks ahead of the canonical head. */
  | "distance"
  /** Its block's turn came but it did not chain: no index 0 on the head, a hole, another build. */
  | "unchained"
  /** Its block's turn came too late: more than maxPendingDepth behind the tip. */
  | "depth"
  /** Waited more than maxPendingAgeMs. */
  | "stale";

export type CacheReason =
  /** No canonical block known yet. */
  | "head-unknown"
  /** Its parent block is not canonical here yet (the stream runs ahead of the chain). */
  | "parent-not-canonical"
  /** Index 0 on the head's number whose parent hash is not the head's: another branch. */
  | "parent-mismatch";

export type SequencingEvent =
  | {
      readonly name: "applied";
      readonly block: number;
      readonly index: number;
      readonly transactions: number;
    }
  | { readonly name: "duplicate"; readonly block: number; readonly index: number }
  | { readonly name: "conflict"; readonly block: number; readonly index: number }
  | {
      readonly name: "gap";
      readonly block: number;
      readonly index: number;
      readonly expected: number;
    }
  | { readonly name: "nonZeroFirst"; readonly block: number; readonly index: number }
  | {
      readonly name: "payloadChanged";
      readonly block: number;
      readonly index: number;
      readonly payloadId: Hex;
      readonly previous: Hex;
    }
  /** A flashblock of a block already canonical here: it came too late. */
  | { readonly name: "superseded"; readonly block: number; readonly index: number }
  | {
      readonly name: "earlyCached";
      readonly block: number;
      readonly index: number;
      readonly reason: CacheReason;
    }
  | { readonly name: "earlyApplied"; readonly block: number; readonly flashblocks: number }
  | {
      readonly name: "earlyEvicted";
      readonly block: number;
      readonly flashblocks: number;
      readonly reason: EvictReason;
    }
  | {
      readonly name: "canonicalMatch";
      readonly block: number;
      readonly preconfirmed: number;
      readonly canonical: number;
    }
  | {
      readonly name: "canonicalMismatch";
      readonly block: number;
      readonly preconfirmed: number;
      readonly canonical: number;
      /** Position of the first pre-confirmed transaction the canonical block does not have there. */
      readonly firstDifference: number;
    }
  | { readonly name: "canonicalReorg"; readonly block: number; readonly previous: number }
  | {
      readonly name: "depthExceeded";
      readonly block: number;
      readonly tip: number;
      readonly maxDepth: number;
    }
  | { readonly name: "stale"; readonly block: number; readonly ageMs: number }
  | { readonly name: "executionFailed"; readonly block: number; readonly index: number };

export type SequencingEventName = SequencingEvent["name"];

/** Every event name, for metrics to create their labels up front. */
export const SEQUENCING_EVENT_NAMES: readonly SequencingEventName[] = [
  "applied",
  "duplicate",
  "conflict",
  "gap",
  "nonZeroFirst",
  "payloadChanged",
  "superseded",
  "earlyCached",
  "earlyApplied",
  "earlyEvicted",
  "canonicalMatch",
  "canonicalMismatch",
  "canonicalReorg",
  "depthExceeded",
  "stale",
  "executionFailed",
];

export type SequencingResult = {
  readonly actions: SequencingAction[];
  readonly events: SequencingEvent[];
};
