// What the follower (follower.ts) is given, and how it words what it tells: its dependencies, its
// log function, and the lines for its sequencing events and for a stop below its base.
import type { Common } from "@ethereumjs/common";
import type { BlockExecutor } from "../exec/blockExecutor.ts";
import type { FlashblockUpdate, SealedUpdate } from "../pending/types.ts";
import type { ChainStore } from "../store/archive.ts";
import type { UpstreamClient } from "../upstream/client.ts";
import { bytesToHex } from "../util/hex.ts";
import type { Prefetcher } from "./prefetcher.ts";
import type { SequencingOptions } from "./sequencing.ts";
import type { SequencingEvent } from "./sequencingTypes.ts";

export type FollowerLog = (
  level: "debug" | "info" | "warn" | "error",
  msg: string,
  fields: Record<string, unknown>,
) => void;

export type FollowerDeps = {
  readonly store: ChainStore;
  readonly executor: BlockExecutor;
  readonly common: Common;
  /** The upstream's JSON-RPC: new heads and canonical blocks. */
  readonly client: UpstreamClient;
  readonly publish: (u: FlashblockUpdate | SealedUpdate) => void;
  /**
   * The archive's head moved (a block committed, or an unwind), before the update saying so is
   * built: a NATS publisher sends the block at once.
   */
  readonly onCommitted?: () => void;
  readonly log: FollowerLog;
  /** Told of every sequencing event (a metric each). */
  readonly onEvent: (e: SequencingEvent) => void;
  /**
   * Following stopped for good (a block that does not verify, an upstream that no longer has the
   * base block): why. Told once; what was followed stays served.
   */
  readonly onStopped: (reason: string) => void;
  /** The datadir, for the way to start over that a stop names. */
  readonly datadir?: string;
  readonly sequencing?: Partial<SequencingOptions>;
  readonly now?: () => number;
  /** Fetches what a flashblock or block will read before it runs (prefetcher.ts). */
  readonly prefetch?: Prefetcher;
};

/** The fields of an event worth a log line, beside its name. */
export function eventFields(e: SequencingEvent): Record<string, unknown> {
  const { name: _, ...fields } = e;
  return fields;
}

/** Why following stopped when the upstream no longer has the base block, and how to start over. */
export function baseForgotten(
  number: number,
  ours: Uint8Array,
  theirs: string | undefined,
  datadir: string | undefined,
): string {
  const now = theirs === undefined ? "has no such block" : `has ${theirs} there`;
  const where = datadir === undefined ? "this datadir" : datadir;
  return `following stopped: the upstream no longer has this node's base block ${number} (${bytesToHex(ours)}; it ${now}): it was reset or reorged below it. The blocks followed so far are still served; to follow the upstream's chain, start again with --fresh (or another --datadir than ${where})`;
}

/** Events that are the normal course of following (debug); the rest say something went wrong. */
export const ROUTINE = new Set<SequencingEvent["name"]>([
  "applied",
  "canonicalMatch",
  "earlyCached",
  "earlyApplied",
  "superseded",
  "duplicate",
]);
