// What the RPC thread and the sequencer worker ask and tell each other (src/util/channel.ts).
// Plain data only.
import type { NewDevChain } from "../chain/newDevChain.ts";
import type { ForwardedLevel } from "../log/logger.ts";
import type { FlashblockUpdate, SealedUpdate } from "../pending/types.ts";
import type { StreamOptions } from "../replica/streams.ts";
import type { DevAnswer, DevRequest, PoolContent } from "../services/transactions.ts";
import type { UpstreamSeries } from "../upstream/callStats.ts";
import type { UpstreamOptions } from "../upstream/options.ts";
import type { StartEvents } from "../util/tsWorker.ts";

export type SequencerWorkerData = {
  readonly datadir: string;
  /** The node's --log-level: this thread drops what is below it before it crosses to the log. */
  readonly logLevel: string;
  /**
   * --genesis: the chain to create when the datadir is empty, and a datadir holding a chain from
   * another genesis is refused (without it, whatever chain the datadir holds is continued: dev's
   * own, or an imported one).
   */
  readonly genesisGiven: boolean;
  /**
   * --chain-id was given: a datadir holding a chain of another chain id is refused (without it,
   * the chain id only shapes a new chain).
   */
  readonly chainIdGiven?: boolean;
  /** The chain to create when the datadir is empty: --genesis's, or a fork's. */
  readonly genesis?: Record<string, unknown>;
  /** Without a genesis, the new dev chain an empty datadir gets (made only then). */
  readonly newChain: NewDevChain;
  /** Interval mining's block time; 0: automine. */
  readonly blockTimeMs: number;
  /** A block per transaction (--automine). */
  readonly automine?: boolean;
  readonly flashblockIntervalMs: number;
  /** The gas limit blocks move towards (decimal). */
  readonly gasLimit: string;
  readonly coinbase: string;
  /** OP-stack chains: the simulated L1 (wei amounts as decimal strings). */
  readonly l1?: {
    readonly baseFee: string;
    readonly blobBaseFee: string;
    readonly baseFeeScalar: number;
    readonly blobBaseFeeScalar: number;
  };
  /** `dev --fork-url`: the chain is forked from a live one at block F (plain data). */
  readonly fork?: SequencerFork;
  /**
   * anvil_reset: whatever chain the datadir holds is replaced by this one in one write, and the
   * stream goes on from this position (it never goes back).
   */
  readonly replace?: { readonly position: number };
  /**
   * `dev --nats`: this thread publishes the chain to JetStream (src/replica/publisher.ts) as it
   * builds it, with no hop through the RPC thread; its log records go to the RPC thread's log.
   */
  readonly nats?: {
    readonly servers: readonly string[];
    readonly streams: StreamOptions;
  };
};

/** A forked chain's upstream and base block, as the sequencer thread is told them. */
export type SequencerFork = {
  readonly upstream: UpstreamOptions;
  /** F: the upstream's chain id (decimal), number and hash (hex). */
  readonly chainId: string;
  readonly number: number;
  readonly hash: string;
  /** A new archive: F's header RLP (hex) and the base writes (balances decimal, code hex). */
  readonly base?: {
    readonly headerRlp: string;
    readonly writes: readonly {
      readonly address: string;
      readonly balance?: string;
      readonly code?: string;
    }[];
  };
};

/** What the sequencer serves the RPC thread. */
export type SequencerApi = {
  readonly requests: {
    /**
     * Pools a transaction: what the pool took, in the answer itself (no `submitted` event for
     * it: one message a transaction, not two, in a burst of sends).
     */
    readonly submit: { readonly request: Uint8Array; readonly reply: Submitted };
    /** Seals the block being built now: the sealed block's number. */
    readonly mine: { readonly request: null; readonly reply: number };
    readonly pool: { readonly request: null; readonly reply: PoolContent };
    readonly control: { readonly request: DevRequest; readonly reply: DevAnswer };
    /** Stops building, closes the publisher and the archive. */
    readonly stop: { readonly request: null; readonly reply: null };
  };
  readonly events: Record<never, never>;
};

/** A transaction the pool took (through the RPC thread, or from a replica over NATS). */
export type Submitted = {
  readonly hash: string;
  readonly sender: Uint8Array;
  readonly nonce: bigint;
  readonly nextNonce: bigint;
};

/** What the sequencer tells the RPC thread. */
export type SequencerParentApi = {
  readonly requests: Record<never, never>;
  readonly events: StartEvents<{
    readonly head: number;
    /** The datadir already held a chain, continued from `head`. */
    readonly resumed: boolean;
  }> & {
    readonly update: FlashblockUpdate | SealedUpdate;
    /** A transaction the pool took not from `submit` (a replica over NATS, an unsigned send). */
    readonly submitted: Submitted;
    /**
     * Why the sequencer's node is not ready (its NATS or a fork's upstream unreachable, blocks not
     * sealing), and what its upstream client did (metrics); sent as it changes.
     */
    readonly health: {
      readonly reasons: readonly string[];
      readonly upstream?: readonly UpstreamSeries[];
    };
    readonly log: {
      readonly level: ForwardedLevel;
      readonly msg: string;
      readonly fields: Record<string, unknown>;
    };
  };
};
