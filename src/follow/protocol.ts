// What the follower thread and the node's main thread tell each other (src/util/channel.ts).
// Plain data only.
import type { ForwardedLevel } from "../log/logger.ts";
import type { FlashblockUpdate, SealedUpdate } from "../pending/types.ts";
import type { StreamOptions } from "../replica/streams.ts";
import type { UpstreamSeries } from "../upstream/callStats.ts";
import type { UpstreamOptions } from "../upstream/options.ts";
import type { StartEvents } from "../util/tsWorker.ts";
import type { SequencingEventName } from "./sequencingTypes.ts";

export type FollowerWorkerData = {
  readonly datadir: string;
  /** The chain config a new archive is made with (the fork's). */
  readonly genesis: Record<string, unknown>;
  readonly upstream: UpstreamOptions;
  /** F: the upstream's chain id (decimal), number and hash (hex) the archive starts at. */
  readonly chainId: string;
  readonly number: number;
  readonly hash: string;
  /** A new archive: F's header RLP (hex). */
  readonly headerRlp?: string;
  /** A new archive: system contracts the upstream lacks, installed at F (code hex). */
  readonly contracts: readonly { readonly address: string; readonly code: string }[];
  /** The Base-format flashblocks stream (ws:// or wss://). */
  readonly flashblocksUrl: string;
  /** How often the upstream's newest block is asked (a flashblock of a newer block asks too). */
  readonly pollMs: number;
  readonly maxPendingDepth: number;
  /** The stream's read deadline (no frame this long: re-dialled). */
  readonly streamReadTimeoutMs: number;
  /** The node's --log-level: this thread drops what is below it before it crosses to the log. */
  readonly logLevel: string;
  /** `--nats`: this thread publishes what it follows (src/replica/publisher.ts), under a lease. */
  readonly nats?: {
    readonly servers: readonly string[];
    readonly streams: StreamOptions;
    readonly leaseTtlMs: number;
    /** Its publisher id (the banner's). */
    readonly id: string;
    /** Where replicas' transactions go (--tx-forward, or the upstream). */
    readonly txForward: UpstreamOptions;
  };
};

/** What the follower serves the main thread. */
export type FollowerApi = {
  readonly requests: {
    /** Stops following and closes the archive. */
    readonly stop: { readonly request: null; readonly reply: null };
  };
  readonly events: Record<never, never>;
};

export type FollowerHealth = {
  /** Why the node is not ready (a stream or upstream out of reach, following stopped). */
  readonly reasons: readonly string[];
  /** Blocks behind the upstream's newest. */
  readonly lagBlocks: number;
  /** Every sequencing event so far, by name (metrics). */
  readonly events: Readonly<Partial<Record<SequencingEventName, number>>>;
  /** Canonical blocks imported so far: count, of which sealed from the replay, gas, time. */
  readonly imported: {
    readonly blocks: number;
    readonly fromReplay: number;
    readonly gas: string;
    readonly ms: number;
  };
  /** The flashblocks stream: its state and its figures so far. */
  readonly stream: FollowerStreamHealth;
  /** `--nats`: whether this follower writes the shared stream now, and what it wrote. */
  readonly publisher?: FollowerPublisherHealth;
  /** What the follower's upstream client did, by method (metrics). */
  readonly upstream?: readonly UpstreamSeries[];
};

export type FollowerPublisherHealth = {
  readonly role: "leader" | "standby";
  /** Its publisher id (the Flashnode-Publisher header of its messages). */
  readonly id: string;
  readonly connected: boolean;
  /** The newest block the block stream acknowledged from this follower. */
  readonly publishedBlock: number | undefined;
  readonly flashblocksPublished: number;
};

export type FollowerStreamHealth = {
  readonly connected: boolean;
  readonly connects: number;
  /** Dials after the first. */
  readonly reconnects: number;
  /** Connections (or dials) that ended, by why (the stream client's DisconnectKind). */
  readonly disconnects: Readonly<Record<string, number>>;
  readonly readTimeouts: number;
  readonly pingsMissed: number;
  /** Data frames received; of which flashblocks, and skipped as invalid; decoded bytes. */
  readonly frames: number;
  readonly flashblocks: number;
  readonly invalid: number;
  readonly bytes: number;
  /** When the last data frame came (epoch ms); undefined: none yet. */
  readonly lastFrameAt: number | undefined;
};

/** What the follower tells the main thread. */
export type FollowerParentApi = {
  readonly requests: Record<never, never>;
  readonly events: StartEvents<{ readonly head: number; readonly resumed: boolean }> & {
    readonly update: FlashblockUpdate | SealedUpdate;
    /** Sent as it changes. */
    readonly health: FollowerHealth;
    readonly log: {
      readonly level: ForwardedLevel;
      readonly msg: string;
      readonly fields: Record<string, unknown>;
    };
  };
};
