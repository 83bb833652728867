// What a node's primary and its --rpc-workers reader processes ask and tell each other, over
// the one channel (src/util/channel.ts, cluster IPC with "advanced" serialization: bigint and
// Uint8Array cross as they are).
import { deserialize, serialize } from "node:v8";
import type { MetricObjectWithValues, MetricValue } from "prom-client";
import type { FollowStreamFigures } from "../metrics/followStreamMetrics.ts";
import type { ChainUpdate } from "../pending/types.ts";
import type { DevAnswer, DevRequest, PoolContent } from "../services/transactions.ts";
import type { UpstreamSeries } from "../upstream/callStats.ts";

/** [limiter name, client key, tokens]: what a reader's rate limiters took. */
export type SpentEntries = ReadonlyArray<readonly [string, string, number]>;

/** [address hex without 0x, next nonce]. */
export type NonceEntries = ReadonlyArray<readonly [string, bigint]>;

/** The source's state as readers report it (/readyz, /metrics). */
export type SourceHealth = {
  /** Why the source is not ready; empty: ready. */
  readonly reasons: readonly string[];
  /** A replica's distance behind its block stream. */
  readonly lag?: { readonly blocks: number; readonly seconds: number };
  /** What happened to the source so far, by event (a follower's sequencing rules, its stream). */
  readonly counters?: Readonly<Record<string, number>>;
  /** A follower's flashblocks stream. */
  readonly followStream?: FollowStreamFigures;
  /** A follower publishing to NATS (`follow --nats`): whether it writes the shared stream now. */
  readonly publisher?: "leader" | "standby";
  /** What the source's upstream clients did (a fork's sequencer, a follower), by method. */
  readonly upstream?: readonly UpstreamSeries[];
};

/** A reader's metrics, for the primary to sum into the node's. */
export type RegistryJson = Array<MetricObjectWithValues<MetricValue<string>>>;

/** Chain updates as the primary sends them on, `sentAt` (epoch ms) when it did. */
export type UpdatesMessage = { readonly updates: readonly ChainUpdate[]; readonly sentAt: number };

/**
 * Serialized once for every reader (the channel then copies bytes, never walks the updates
 * again), each flashblock's diff as its laid-out layer (pending/updateLayers.ts).
 */
export function encodeUpdates(m: UpdatesMessage): Uint8Array {
  return serialize(m);
}

export function decodeUpdates(bytes: Uint8Array): UpdatesMessage {
  return deserialize(bytes) as UpdatesMessage;
}

/** What the primary serves its readers. */
export type PrimaryApi = {
  readonly requests: {
    /**
     * A reader starts following: the pool's nonces, the block being built so far, the source's
     * health; every later update comes as an event, none missed or doubled.
     */
    readonly join: {
      readonly request: null;
      readonly reply: {
        readonly poolNonces: NonceEntries;
        readonly updates: readonly ChainUpdate[];
        readonly health: SourceHealth;
        /** What the chain source takes: transactions, pool queries, dev requests. */
        readonly serves: {
          readonly transactions: boolean;
          readonly pool: boolean;
          readonly control: boolean;
        };
      };
    };
    readonly submit: { readonly request: Uint8Array; readonly reply: string };
    readonly mine: { readonly request: null; readonly reply: number };
    readonly pool: { readonly request: null; readonly reply: PoolContent };
    readonly control: { readonly request: DevRequest; readonly reply: DevAnswer };
    /** Resolves once every reader has applied what the primary had sent when asked. */
    readonly settle: { readonly request: null; readonly reply: null };
    /** The whole node's Prometheus text (every reader's registry, summed). */
    readonly metrics: { readonly request: null; readonly reply: string };
    /** A filter poll for the filter reader `slot` holds; its result as JSON text. */
    readonly filterCall: {
      readonly request: {
        readonly slot: number;
        readonly method: string;
        readonly filterId: string;
      };
      readonly reply: string;
    };
  };
  readonly events: {
    readonly listening: { readonly url: string; readonly dedicatedUrl: string };
    readonly spent: SpentEntries;
    /** How many of the primary's state events (updates, nonces) this reader has applied. */
    readonly applied: number;
  };
};

/** What a reader serves the primary. */
export type ReaderApi = {
  readonly requests: {
    readonly registry: { readonly request: null; readonly reply: RegistryJson };
    readonly filterCall: {
      readonly request: { readonly method: string; readonly filterId: string };
      readonly reply: string;
    };
  };
  readonly events: {
    /** Updates of the chain: an UpdatesMessage, encoded (encodeUpdates). */
    readonly updates: Uint8Array;
    readonly poolNonces: NonceEntries;
    /** Tokens other readers' limiters took. */
    readonly charge: SpentEntries;
    readonly health: SourceHealth;
  };
};
