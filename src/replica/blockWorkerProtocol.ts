// What a replica's main thread and its block-following worker tell each other
// (src/util/channel.ts). The worker writes the archive; the main thread serves it.
import type { ForwardedLevel } from "../log/logger.ts";
import type { WireError } from "../util/channel.ts";
import type { StartEvents } from "../util/tsWorker.ts";
import type { StreamOptions } from "./streams.ts";

export type BlockWorkerData = {
  readonly datadir: string;
  readonly servers: readonly string[];
  readonly streams: StreamOptions;
  /** Execute every block and refuse one whose roots differ (`--verify`). */
  readonly verify: boolean;
  readonly logLevel: string;
};

/** What the worker serves. */
export type BlockWorkerApi = {
  readonly requests: {
    /** Stops following, closes the snapshotter, NATS and the archive. */
    readonly stop: { readonly request: null; readonly reply: null };
  };
  readonly events: Record<never, never>;
};

/** What the worker tells the main thread. */
export type BlockParentApi = {
  readonly requests: Record<never, never>;
  readonly events: StartEvents<null> & {
    /** The archive holds the chain's config (its genesis arrived, or was there). */
    readonly configured: null;
    /** Block `number` is committed. */
    readonly stored: { readonly number: number };
    /** The archive went back to block `to` (the sequencer's evm_revert). */
    readonly unwound: { readonly to: number };
    /** The stream's distance ahead of the archive, after each block. */
    readonly lag: { readonly blocks: number; readonly seconds: number };
    /** The worker cannot go on (the stream carries another chain). */
    readonly fatal: WireError;
    readonly log: {
      readonly level: ForwardedLevel;
      readonly msg: string;
      readonly fields: Record<string, unknown>;
    };
  };
};
