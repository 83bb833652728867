// What a node is made of, as data: every role (dev, dev --fork-url, serve, replica, follow) is a
// choice of the same parts — an archive, a chain source, a pending source
// (the source's updates, if it has any), readers, an edge — put together by node/assembly.ts.
import type { LoadedState } from "../chain/anvilState.ts";
import type { DevAccount, DevFork } from "../chain/devGenesis.ts";
import { DEFAULT_FINALIZED_DEPTH, DEFAULT_SAFE_DEPTH } from "../chain/forkchoice.ts";
import type { DevL1Config } from "../chain/op/l1Info.ts";
import type { CallLimits } from "../exec/callLimits.ts";
import type { Logger } from "../log/logger.ts";
import type { FollowStreamFigures } from "../metrics/followStreamMetrics.ts";
import type { FlashblockStats } from "../pending/flashblockStats.ts";
import type { PendingBlock } from "../pending/pendingBlock.ts";
import type { StreamOptions } from "../replica/streams.ts";
import type { DevAnswer, DevRequest, PoolContent } from "../services/transactions.ts";
import type { UpstreamSeries } from "../upstream/callStats.ts";
import type { UpstreamOptions } from "../upstream/options.ts";
import type { FrontendOptions } from "./frontend.ts";

export const RECEIPT_LOOKUPS = ["preconfirmed", "sealed"] as const;
/** Whether transaction lookups answer at pre-confirmation or only once sealed. */
export type ReceiptLookups = (typeof RECEIPT_LOOKUPS)[number];

export type Role = "dev" | "serve" | "replica" | "follow";

/** A follower of a shared stream (`follow --nats`): the one writing it, or one ready to. */
export type PublisherRole = "leader" | "standby";

/** How the readers answer, whatever produces the chain. */
export type ViewOptions = {
  readonly receipts: ReceiptLookups;
  /** `safe` and `finalized`: trailing the head by these depths, or as the archive stores them. */
  readonly forkchoice:
    | { readonly kind: "trailing"; readonly safe: number; readonly finalized: number }
    | { readonly kind: "stored" };
  /** /readyz calls pending stale after five of these without a flashblock (at least 1 s). */
  readonly flashblockIntervalMs: number;
  /** A replica: /readyz says not ready while the archive is more blocks behind than this. */
  readonly maxLagBlocks?: number;
  /** What testing_buildBlockV1's blocks move towards (dev's --gas-limit). */
  readonly gasCeil?: bigint;
  /** dev: the test accounts; those the chain's genesis funds sign eth_sendTransaction & co. */
  readonly accounts?: readonly DevAccount[];
};

/**
 * The view of a node that follows another's chain (a replica, a follower): pre-confirmed receipts,
 * safe and finalized trailing the head at the sequencer's default depths (dev --safe-depth,
 * --finalized-depth), Base's 200-ms flashblocks.
 */
export function followingView(extra: Pick<ViewOptions, "maxLagBlocks"> = {}): ViewOptions {
  return {
    receipts: "preconfirmed",
    forkchoice: { kind: "trailing", safe: DEFAULT_SAFE_DEPTH, finalized: DEFAULT_FINALIZED_DEPTH },
    flashblockIntervalMs: 200,
    ...extra,
  };
}

/** `flashnode dev`'s chain: what a new one is made of, and how its sequencer runs. */
export type DevChainOptions = {
  readonly chainId: bigint;
  readonly fork: DevFork;
  /** A geth genesis (parsed JSON) instead of the generated one. */
  readonly genesis: Record<string, unknown> | undefined;
  /** A new chain is plain Ethereum (`--ethereum`); by default it is an OP-stack chain. */
  readonly ethereum: boolean;
  /** OP stack: the simulated L1 of the L1-info deposits. */
  readonly l1: DevL1Config;
  /** Interval mining's block time; 0: automine. */
  readonly blockTimeMs: number;
  /** A block per transaction, sealed as soon as its flashblock is (--automine, --block-time 0). */
  readonly automine?: boolean;
  readonly flashblockIntervalMs: number;
  readonly gasLimit: bigint;
  readonly accounts: number;
  readonly balanceEth: bigint;
  /** `--nats URL`: the sequencer publishes the chain to JetStream for replicas. */
  readonly nats?: { readonly servers: readonly string[]; readonly streams: StreamOptions };
  /** --load-state (--state): accounts written into the chain at start, then sealed. */
  readonly loadState?: LoadedState;
  /** --dump-state (--state): where the chain's state is written, as anvil's file, at exit. */
  readonly dumpState?: string;
  /** `--fork-url`: the chain starts from a live chain's state at a block F. */
  readonly upstream?: ForkPlan;
  /** --gas-limit was given (a fork otherwise keeps its upstream's gas limit). */
  readonly gasLimitGiven?: boolean;
  /** --chain-id was given: a datadir of another chain id is refused rather than continued. */
  readonly chainIdGiven?: boolean;
};

/** What a forked chain shows of its origin (banner, anvil_nodeInfo). */
export type ForkInfo = {
  readonly host: string;
  readonly chainId: bigint;
  readonly number: number;
  readonly name?: string;
};

/** A chain forked from a live one: its upstream, and where to fork it. */
export type ForkPlan = {
  readonly options: UpstreamOptions;
  /** F's number; negative: that many below the upstream's head; unset: head less a few. */
  readonly blockNumber?: bigint;
  /** `--fork-chain-id`: skips asking the upstream's chain id (an offline start). */
  readonly chainId?: bigint;
};

/** Where the chain comes from. */
export type SourcePlan =
  /** dev: a local sequencer builds it. */
  | { readonly kind: "sequencer"; readonly chain: DevChainOptions }
  /** serve: nothing; the archive does not move. */
  | { readonly kind: "archive" }
  /** replica: a sequencer's streams over NATS JetStream. */
  | {
      readonly kind: "jetstream";
      readonly servers: readonly string[];
      readonly streams: StreamOptions;
      /** Execute every block and refuse one whose roots differ (`--verify`). */
      readonly verify: boolean;
      /** The sequencer's chain is a fork (`dev --fork-url`): its upstream (`--fork-url`). */
      readonly forkUpstream?: UpstreamOptions;
    }
  /** follow: a live chain over JSON-RPC, and its flashblocks stream. */
  | { readonly kind: "follow"; readonly follow: FollowPlan };

/** `flashnode follow`: the live chain, its flashblocks, and where transactions go. */
export type FollowPlan = {
  readonly upstream: UpstreamOptions;
  readonly flashblocksUrl: string;
  /** The EVM rules of the chain's blocks from the first one followed (at least F's). */
  readonly hardfork: DevFork;
  /** Where eth_sendRawTransaction goes (a sequencer's endpoint); the upstream by default. */
  readonly txForward: string | undefined;
  readonly pollMs: number;
  readonly maxPendingDepth: number;
  readonly streamReadTimeoutMs: number;
  /**
   * `--nats URL`: what is followed is published to JetStream for replicas; followers given the
   * same streams share them, one publishing at a time under a lease of this TTL.
   */
  readonly nats?: {
    readonly servers: readonly string[];
    readonly streams: StreamOptions;
    readonly leaseTtlMs: number;
  };
};

/** A node's primary process, or one of its --rpc-workers readers (slot 0..count-1). */
export type ProcessRole =
  | { readonly kind: "primary" }
  | { readonly kind: "reader"; readonly slot: number; readonly count: number };

export type NodePlan = {
  readonly role: Role;
  readonly datadir: string;
  /** dev's --fresh: the datadir is wiped first. */
  readonly fresh: boolean;
  readonly logger: Logger;
  readonly frontend: FrontendOptions;
  /** Reader processes serving RPC (--rpc-workers); 1: this process serves. */
  readonly readerProcesses: number;
  /** This process: the node's primary, or one of its readers. */
  readonly process: ProcessRole;
  /** What the primary adds to its readers' environment (a generated API key). */
  readonly readerEnv: Readonly<Record<string, string>>;
  /** The CLI arguments a reader process runs with (it builds the same plan). */
  readonly argv: readonly string[];
  readonly callLimits: CallLimits | undefined;
  readonly view: ViewOptions;
  readonly source: SourcePlan;
};

/** Where transactions and dev requests go: the chain source's intake. */
export type ChainTarget = {
  submit(raw: Uint8Array): Promise<{ hash: string }>;
  /** Seals the block being built now; the sealed block's number. */
  mine(): Promise<number>;
  /** The pool (absent where transactions are only forwarded: a replica). */
  poolContent?(): Promise<PoolContent>;
  /** The dev methods (absent where no sequencer runs here). */
  control?(request: DevRequest): Promise<DevAnswer>;
  /** Senders' next pool nonces, as the pool accepts transactions (dev). */
  readonly poolNonces?: PoolNonces;
};

/** The pool's next nonce per sender (its contiguous run of accepted transactions). */
export type PoolNonces = {
  get(address: Uint8Array): bigint | undefined;
  /** [address hex without 0x, nonce] of every sender (what a joining reader starts from). */
  entries(): Array<readonly [string, bigint]>;
  /** Told of each sender's new next nonce. */
  onChange(listener: (sender: Uint8Array, nextNonce: bigint) => void): void;
};

/** A started chain source (the producer side of a role). */
export type ChainSource = {
  /** Where transactions go; undefined: this node takes none (serve). */
  readonly target: ChainTarget | undefined;
  /** The head the node started on, when the datadir already held a chain it continues. */
  readonly resumedAt: number | undefined;
  /** What it is connected to, for the banner ("NATS JetStream: …"). */
  readonly upstream?: { readonly label: string; readonly url: string };
  /** A forked chain: the upstream's host (never its URL: it may hold a key), chain and F. */
  readonly fork?: ForkInfo;
  /** Why the source is not ready (an unreachable NATS, a replica too far behind); empty: ready. */
  readiness(): string[];
  /** A replica's distance behind its block stream. */
  lag?(): { readonly blocks: number; readonly seconds: number };
  /** What happened to the source so far, by event (flashnode_follow_events_total). */
  counters?(): Readonly<Record<string, number>>;
  /** A follower's flashblocks stream (flashnode_follow_stream_*). */
  followStream?(): FollowStreamFigures;
  /** A follower publishing to NATS: whether it writes the shared stream now, or stands by. */
  publisherRole?(): PublisherRole;
  /** A follower publishing to NATS: where (the banner's line). */
  readonly publishing?: string;
  /** A follower publishing to NATS: its publisher id (the Flashnode-Publisher header). */
  readonly publisherId?: string;
  /** What its upstream clients did so far, by method (flashnode_upstream_*): a fork, a follower. */
  upstreamCalls?(): readonly UpstreamSeries[];
  close(): Promise<void>;
};

/** A running node, whatever its role: what the banner shows and tests use. */
export type RunningNode = {
  /** The node's own process, or one of its --rpc-workers readers. */
  readonly process: "primary" | "reader";
  readonly role: Role;
  readonly datadir: string;
  readonly url: string;
  /** The first dedicated endpoint (/rpc/<key>). */
  readonly dedicatedUrl: string;
  readonly wsUrl: string;
  readonly chainId: bigint;
  /** The archive's head when the node started serving. */
  readonly head: number;
  readonly resumedAt: number | undefined;
  /** dev: the test-mnemonic accounts the chain's genesis funds (none on an imported chain). */
  readonly accounts: readonly DevAccount[];
  /** How many processes serve RPC. */
  readonly readers: number;
  /** The processes serving RPC (this one, or the --rpc-workers readers). */
  readerPids(): number[];
  readonly upstream: { readonly label: string; readonly url: string } | undefined;
  readonly fork: ForkInfo | undefined;
  /** A follower publishing to NATS: where, and its role as it is now. */
  readonly publishing?: { readonly where: string; readonly id: string; role(): PublisherRole };
  /** The current pre-confirmed block, as this process sees it (tests, metrics). */
  pending(): PendingBlock | undefined;
  /** Flashblock timings as this process saw them (absent: the readers are other processes). */
  readonly stats: FlashblockStats | undefined;
  /** Resolves if the node can no longer run (its stream carries another chain): exit. */
  readonly failed: Promise<Error>;
  close(): Promise<void>;
};

/** The upstream a plan's chain is forked from, if it is a fork (every reader opens its own). */
export function forkUpstreamOf(plan: NodePlan): UpstreamOptions | undefined {
  if (plan.source.kind === "follow") return plan.source.follow.upstream;
  if (plan.source.kind === "jetstream") return plan.source.forkUpstream;
  return plan.source.kind === "sequencer" ? plan.source.chain.upstream?.options : undefined;
}
