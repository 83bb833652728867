// Nodes for end-to-end tests, started in this process through the one assembly (src/node/
// assembly.ts) from the plan each role's command would build: dev, serve, replica.
import type { LoadedState } from "../../src/chain/anvilState.ts";
import type { DevFork } from "../../src/chain/devGenesis.ts";
import { devAccounts } from "../../src/chain/devGenesis.ts";
import { DEFAULT_FINALIZED_DEPTH, DEFAULT_SAFE_DEPTH } from "../../src/chain/forkchoice.ts";
import { DEFAULT_DEV_L1, type DevL1Config } from "../../src/chain/op/l1Info.ts";
import type { CallLimits } from "../../src/exec/callLimits.ts";
import type { Logger } from "../../src/log/logger.ts";
import { startNode } from "../../src/node/assembly.ts";
import type { FrontendOptions } from "../../src/node/frontend.ts";
import {
  type ForkPlan,
  followingView,
  type ReceiptLookups,
  type RunningNode,
} from "../../src/node/plan.ts";
import type { StreamOptions } from "../../src/replica/streams.ts";
import { upstreamOptions } from "../../src/upstream/options.ts";
import { silentLogger, testFrontendOptions } from "./options.ts";

/** `flashnode dev`'s settings, flat, as tests override them. */
export type TestDevOptions = {
  readonly datadir: string;
  readonly fresh: boolean;
  readonly frontend: FrontendOptions;
  readonly logger: Logger;
  readonly chainId: bigint;
  readonly fork: DevFork;
  readonly genesis: Record<string, unknown> | undefined;
  readonly ethereum?: boolean;
  readonly l1?: DevL1Config;
  readonly blockTimeMs: number;
  readonly flashblockIntervalMs: number;
  readonly gasLimit: bigint;
  readonly accounts: number;
  readonly balanceEth: bigint;
  readonly safeDepth: number;
  readonly finalizedDepth: number;
  readonly receipts: ReceiptLookups;
  readonly callLimits?: CallLimits;
  readonly nats?: { readonly servers: readonly string[]; readonly streams: StreamOptions };
  readonly automine?: boolean;
  readonly loadState?: LoadedState;
  readonly dumpState?: string;
  /** `--fork-url` and its companions: the chain is forked from a live one. */
  readonly upstream?: ForkPlan;
  readonly gasLimitGiven?: boolean;
};

/** `flashnode dev`'s defaults (src/cli/optionTable.ts). */
export const DEFAULT_DEV_OPTIONS = {
  chainId: 31337n,
  fork: "osaka" as DevFork,
  blockTimeMs: 2000,
  flashblockIntervalMs: 200,
  gasLimit: 60_000_000n,
  accounts: 10,
  balanceEth: 10_000n,
  safeDepth: DEFAULT_SAFE_DEPTH,
  finalizedDepth: DEFAULT_FINALIZED_DEPTH,
  receipts: "preconfirmed" as ReceiptLookups,
};

/** What every node these helpers start shares: one process, the primary, no reader processes. */
function onePrimary(
  o: { readonly datadir: string; readonly logger: Logger; readonly frontend: FrontendOptions },
  fresh: boolean,
  callLimits: CallLimits | undefined,
) {
  return {
    datadir: o.datadir,
    fresh,
    logger: o.logger,
    frontend: o.frontend,
    readerProcesses: 1,
    process: { kind: "primary" },
    readerEnv: {},
    argv: [],
    callLimits,
  } as const;
}

export function startDevNode(o: TestDevOptions): Promise<RunningNode> {
  return startNode({
    ...onePrimary(o, o.fresh, o.callLimits),
    role: "dev",
    view: {
      receipts: o.receipts,
      forkchoice: { kind: "trailing", safe: o.safeDepth, finalized: o.finalizedDepth },
      flashblockIntervalMs: o.flashblockIntervalMs,
      gasCeil: o.gasLimit,
      accounts: devAccounts(o.accounts),
    },
    source: {
      kind: "sequencer",
      chain: {
        chainId: o.chainId,
        fork: o.fork,
        genesis: o.genesis,
        ethereum: o.ethereum ?? false,
        l1: o.l1 ?? DEFAULT_DEV_L1,
        blockTimeMs: o.blockTimeMs,
        flashblockIntervalMs: o.flashblockIntervalMs,
        gasLimit: o.gasLimit,
        accounts: o.accounts,
        balanceEth: o.balanceEth,
        ...(o.nats === undefined ? {} : { nats: o.nats }),
        ...(o.automine === undefined ? {} : { automine: o.automine }),
        ...(o.loadState === undefined ? {} : { loadState: o.loadState }),
        ...(o.dumpState === undefined ? {} : { dumpState: o.dumpState }),
        ...(o.upstream === undefined ? {} : { upstream: o.upstream }),
        ...(o.gasLimitGiven === undefined ? {} : { gasLimitGiven: o.gasLimitGiven }),
      },
    },
  });
}

/** `flashnode serve` of an archive. */
export function startArchiveServer(o: {
  readonly datadir: string;
  readonly frontend: FrontendOptions;
  readonly logger: Logger;
  readonly callLimits?: CallLimits;
}): Promise<RunningNode> {
  return startNode({
    ...onePrimary(o, false, o.callLimits),
    role: "serve",
    view: { receipts: "preconfirmed", forkchoice: { kind: "stored" }, flashblockIntervalMs: 0 },
    source: { kind: "archive" },
  });
}

export type ReplicaNodeOptions = {
  readonly datadir: string;
  readonly nats: readonly string[];
  readonly streams: StreamOptions;
  /** The rest default to what these tests use: the test key, no log, 50-ms flashblocks, safe 2 and
   * finalized 4 blocks behind, ready within 10 blocks of the stream. */
  readonly frontend?: FrontendOptions;
  readonly logger?: Logger;
  readonly flashblockIntervalMs?: number;
  readonly safeDepth?: number;
  readonly finalizedDepth?: number;
  readonly maxLagBlocks?: number;
  readonly verify?: boolean;
  readonly callLimits?: CallLimits;
  /** `--fork-url`: the upstream of a forked sequencer's chain. */
  readonly forkUpstream?: string;
};

/** `flashnode replica` following `nats`. */
export function startReplicaNode(given: ReplicaNodeOptions): Promise<RunningNode> {
  const o = {
    frontend: testFrontendOptions(),
    logger: silentLogger,
    flashblockIntervalMs: 50,
    safeDepth: 2,
    finalizedDepth: 4,
    maxLagBlocks: 10,
    ...given,
  };
  return startNode({
    ...onePrimary(o, false, o.callLimits),
    role: "replica",
    view: {
      receipts: "preconfirmed",
      forkchoice: { kind: "trailing", safe: o.safeDepth, finalized: o.finalizedDepth },
      flashblockIntervalMs: o.flashblockIntervalMs,
      maxLagBlocks: o.maxLagBlocks,
    },
    source: {
      kind: "jetstream",
      servers: o.nats,
      streams: o.streams,
      verify: o.verify ?? false,
      ...(o.forkUpstream === undefined ? {} : { forkUpstream: upstreamOptions(o.forkUpstream) }),
    },
  });
}

/** A running node of any role (one assembly). */
export type ReplicaNode = RunningNode;

export type FollowNodeOptions = {
  readonly datadir: string;
  readonly rpc: string;
  readonly flashblocks: string;
  readonly frontend: FrontendOptions;
  readonly logger: Logger;
  readonly pollMs?: number;
  readonly maxPendingDepth?: number;
  readonly streamReadTimeoutMs?: number;
  readonly txForward?: string;
  /** The followed chain's rules (--hardfork); osaka by default. */
  readonly hardfork?: DevFork;
  /** `--nats`: what is followed is published (followers of one stream elect one publisher). */
  readonly nats?: {
    readonly servers: readonly string[];
    readonly streams: StreamOptions;
    readonly leaseTtlMs?: number;
  };
};

/** `flashnode follow` of a live chain and its flashblocks stream. */
export function startFollowNode(o: FollowNodeOptions): Promise<RunningNode> {
  return startNode({
    ...onePrimary(o, false, undefined),
    role: "follow",
    view: followingView(),
    source: {
      kind: "follow",
      follow: {
        upstream: upstreamOptions(o.rpc, { retryBackoffMs: 50, maxBackoffMs: 500 }),
        flashblocksUrl: o.flashblocks,
        hardfork: o.hardfork ?? "osaka",
        txForward: o.txForward,
        pollMs: o.pollMs ?? 100,
        maxPendingDepth: o.maxPendingDepth ?? 3,
        streamReadTimeoutMs: o.streamReadTimeoutMs ?? 5_000,
        ...(o.nats === undefined
          ? {}
          : {
              nats: {
                servers: o.nats.servers,
                streams: o.nats.streams,
                leaseTtlMs: o.nats.leaseTtlMs ?? 1_000,
              },
            }),
      },
    },
  });
}
