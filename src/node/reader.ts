// One reader: what answers JSON-RPC, the same in every role and whether it runs in the node's
// own process or in one of its --rpc-workers processes. It follows the chain's updates (when
// the chain moves) into a pending view and a head, runs calls on its call worker, hands
// transactions and dev requests to the chain source, and serves HTTP, WebSocket and
// /flashblocks from the archive.
import { decodeHeader, decodeTransaction } from "../chain/blockView.ts";
import { trailingForkchoice } from "../chain/forkchoice.ts";
import { type ChainSpec, chainSpecFromGenesis } from "../chain/genesis.ts";
import type { Health } from "../edge/edgeServer.ts";
import { CallClient } from "../exec/callClient.ts";
import type { CallLimits } from "../exec/callLimits.ts";
import type { CallWorkerData } from "../exec/callProtocol.ts";
import { createDevSigner } from "../exec/devSigner.ts";
import { createFeedHub } from "../feed/hub.ts";
import type { Logger } from "../log/logger.ts";
import type { MetricsSources } from "../metrics/metrics.ts";
import type { FlashblockStats } from "../pending/flashblockStats.ts";
import type { PendingBlock } from "../pending/pendingBlock.ts";
import type { ChainReset, ChainUpdate } from "../pending/types.ts";
import { poolTransactionJson } from "../rpc/format/block.ts";
import type { MethodRegistry } from "../rpc/method.ts";
import { createMethods } from "../rpc/methods.ts";
import { mustNotHaveMissed } from "../services/stateMisses.ts";
import type { TransactionSink } from "../services/transactions.ts";
import type { ChainStore } from "../store/archive.ts";
import type { KvEnv } from "../store/lmdb.ts";
import { mergeUpstreamSeries, UpstreamCallStats } from "../upstream/callStats.ts";
import { type UpstreamOptions, upstreamOptions } from "../upstream/options.ts";
import { DEV_CLIENT_VERSION } from "../version.ts";
import { createBackend } from "./backendFactory.ts";
import { type ChainView, chainViewHealth, chainViewMetrics, createChainView } from "./chainView.ts";
import { type ForkView, openForkView } from "./forkView.ts";
import { type FrontendOptions, startFrontend } from "./frontend.ts";
import type { ChainTarget, ViewOptions } from "./plan.ts";
import type { PositionFence } from "./positionFence.ts";
import type { ReaderLink } from "./readerLink.ts";
import type { SourceHealth } from "./readerProtocol.ts";
import { storeReadiness, withinLag } from "./readiness.ts";
import { type ChainSteps, createReadPath } from "./readPath.ts";

/** The archive, opened once per process. */
export type Archive = { readonly kv: KvEnv; readonly store: ChainStore };

/** Where a reader's transactions go, and how it knows every reader shows a change. */
export type ReaderTarget = ChainTarget & {
  /** Resolves once every reader of the node shows what this one shows now. */
  settle?(): Promise<void>;
};

export type ReaderDeps = {
  readonly datadir: string;
  readonly archive: Archive;
  readonly spec: ChainSpec;
  /** The archive is read-only here (`serve`): the call worker opens it so too. */
  readonly readOnly: boolean;
  readonly frontend: FrontendOptions;
  readonly logger: Logger;
  readonly view: ViewOptions;
  readonly callLimits: CallLimits | undefined;
  /** Registers the reader's handler of the chain's updates; absent: the chain does not move. */
  readonly follow?: (apply: (u: ChainUpdate, catchUp: boolean) => void) => void;
  readonly target?: ReaderTarget;
  /** The chain source's health (an unreachable NATS, a replica's lag). */
  readonly sourceHealth: () => SourceHealth;
  /** A reader process: its link to the primary, and the position fence the primary writes. */
  readonly link?: ReaderLink;
  readonly fence?: PositionFence;
  /**
   * Start the call worker before following the chain and serving, as every reader once did
   * (a replica's): otherwise it starts once the reader serves. A replica's reader shows the
   * archive's head as it was when the reader opened until the next seal arrives from the
   * flashblock stream; on a quiet chain, blocks its block consumer stores meanwhile (catching
   * up) stay unseen until then, and the worker's start used to give that catch-up its time.
   */
  readonly callWorkerFirst?: boolean;
  /** Whether this reader records each flashblock's build time (one reader does, for the node). */
  readonly recordsBuilds?: boolean;
  /** This reader's slot of the node's --rpc-workers (0 in a process that serves alone). */
  readonly slot?: number;
  /** Listens for each update's delay from the primary to this reader. */
  readonly onRelay?: (listener: (lagMs: number) => void) => void;
  /** A forked chain's upstream (the archive says where it forked). */
  readonly forkUpstream: UpstreamOptions | undefined;
};

export type Reader = {
  readonly url: string;
  readonly dedicatedUrl: string;
  readonly wsUrl: string;
  pending(): PendingBlock | undefined;
  readonly stats: FlashblockStats | undefined;
  close(): Promise<void>;
};

export async function startReader(deps: ReaderDeps): Promise<Reader> {
  const { archive, view } = deps;
  const { kv, store } = archive;
  /** What this reader's upstream client did (a fork's reads; metrics). */
  const upstreamStats = new UpstreamCallStats();
  let fork = openForkView(archive, deps.forkUpstream, deps.logger, upstreamStats.hooks);
  const callData = (f: ForkView | undefined): CallWorkerData => ({
    datadir: deps.datadir,
    ...(deps.readOnly ? { readOnly: true } : {}),
    ...(view.gasCeil === undefined ? {} : { gasCeil: view.gasCeil.toString() }),
    ...(deps.callLimits === undefined ? {} : { limits: deps.callLimits }),
    ...(f === undefined ? {} : { fork: f.callWorker }),
  });
  // The call worker starts once the reader serves (reads need no EVM); calls wait for it.
  const calls = new CallClient(callData(fork), deps.logger);
  try {
    if (deps.callWorkerFirst === true) await calls.start();
    const feed =
      deps.follow === undefined ? undefined : createFeedHub(deps.logger.child({ module: "feed" }));
    let chainView: ChainView | undefined;
    let spec = deps.spec;
    /** The chain's own methods and its fork's steps (rebuilt when anvil_reset replaces it). */
    const serve = (): { own: MethodRegistry; steps: ChainSteps } => {
      const backend = createBackend(spec, store, {
        calls,
        readerSlot: deps.slot ?? 0,
        ...(fork === undefined ? {} : { state: fork.state, fork: fork.origin }),
        ...(feed === undefined ? {} : { feed }),
        ...(chainView === undefined
          ? {}
          : { pending: chainView.pending, head: chainView.head, timeline: chainView.timeline }),
        ...(deps.target === undefined || chainView === undefined
          ? {}
          : { transactions: transactionSink(deps.target, chainView, view, fork !== undefined) }),
        ...(view.accounts === undefined
          ? {}
          : {
              // A fork funds every test account on top of its upstream.
              signer: createDevSigner(
                spec,
                view.accounts.filter(
                  (a) => fork !== undefined || spec.alloc.has(a.address.slice(2).toLowerCase()),
                ),
              ),
            }),
        preconfirmedReceipts: view.receipts === "preconfirmed",
        // A node with a sequencer here answers anvil's methods (dev).
        ...(deps.target?.control === undefined ? {} : { clientVersion: DEV_CLIENT_VERSION }),
        ...(view.forkchoice.kind === "trailing"
          ? { forkchoice: trailingForkchoice(view.forkchoice.safe, view.forkchoice.finalized) }
          : {}),
      });
      return { own: createMethods(backend), steps: fork?.steps(backend) ?? [] };
    };
    if (deps.follow !== undefined && feed !== undefined) {
      const chain = createChainView({
        kv,
        store,
        feed,
        decodeHeader: (rlp) => decodeHeader(spec.common, rlp),
        forward: (pending, sealed) => calls.share(pending, sealed),
        renderTransaction: (raw, from) =>
          poolTransactionJson(decodeTransaction(spec.common, raw), from),
      });
      chainView = chain;
    }
    const first = serve();
    const path = createReadPath(
      first.own,
      first.steps,
      deps.fence === undefined || chainView === undefined
        ? undefined
        : { fence: deps.fence, chainView, logger: deps.logger },
    );
    /** anvil_reset replaced the chain: its methods are rebuilt (calls wait for them). */
    const replaced = (reset: ChainReset) => {
      void path.rebuild(
        (async () => {
          const config = store.chainConfig();
          if (config === undefined) throw new Error("the replaced chain has no config");
          spec = await chainSpecFromGenesis(JSON.parse(config));
          fork?.close();
          const upstream =
            reset.fork === undefined
              ? undefined
              : upstreamOptions(reset.fork.url, {
                  ...(deps.forkUpstream ?? {}),
                  headers: reset.fork.headers,
                });
          fork = openForkView(archive, upstream, deps.logger, upstreamStats.hooks);
          calls.reconfigure(callData(fork));
          return serve();
        })(),
      );
    };
    if (deps.follow !== undefined && chainView !== undefined) {
      const chain = chainView;
      deps.follow((u, catchUp) => {
        chain.apply(u, catchUp);
        if (u.kind === "sealed" && u.reset !== undefined) replaced(u.reset);
      });
    }
    const frontend = await startFrontend({
      options: deps.frontend,
      methods: path.methods,
      feed,
      logger: deps.logger,
      ...(deps.link === undefined ? {} : { link: deps.link }),
      metricsSources: {
        ...metricsSources(deps, chainView),
        // A fork or a follower (a dev chain may become a fork through anvil_reset): this reader's
        // upstream calls, its call worker's, and (one reader for the node) the source's.
        ...(deps.forkUpstream === undefined && deps.target?.control === undefined
          ? {}
          : {
              upstream: async () =>
                mergeUpstreamSeries([
                  upstreamStats.snapshot(),
                  await calls.upstreamCalls(),
                  (deps.recordsBuilds ?? true) ? deps.sourceHealth().upstream : undefined,
                ]),
            }),
      },
      health: health(deps, chainView),
    });
    // Started means every part is: a call worker that cannot start fails the start.
    await calls.start().catch(async (e: unknown) => {
      await frontend.close();
      throw e;
    });
    return {
      url: frontend.url,
      dedicatedUrl: frontend.dedicatedUrl,
      wsUrl: frontend.wsUrl,
      pending: () => chainView?.pending(),
      stats: chainView?.stats,
      async close() {
        await frontend.close();
        await calls.stop();
        fork?.close();
      },
    };
  } catch (e) {
    await calls.stop();
    fork?.close();
    throw e;
  }
}

function transactionSink(
  target: ReaderTarget,
  chainView: ChainView,
  view: ViewOptions,
  forked: boolean,
): TransactionSink {
  return {
    submit: (raw) => {
      // On a fork, a handler that read upstream state not fetched yet runs again: it must not
      // send what it built from a placeholder (services/stateMisses.ts).
      if (forked) mustNotHaveMissed();
      return target.submit(raw);
    },
    poolNonce: (address) => target.poolNonces?.get(address),
    mine: () => target.mine(),
    ...(target.poolContent === undefined ? {} : { poolContent: () => target.poolContent!() }),
    ...(target.control === undefined ? {} : { control: (r) => target.control!(r) }),
    async waitForReceipt(hash, ms) {
      const seen =
        view.receipts === "sealed"
          ? await chainView.waitUntilSealed(hash, ms)
          : await chainView.waitForInclusion(hash, ms);
      // Read-your-writes on any connection: every reader shows it before the answer goes.
      if (seen) await target.settle?.();
      return seen;
    },
  };
}

function metricsSources(deps: ReaderDeps, chainView: ChainView | undefined): MetricsSources {
  const { kv, store } = deps.archive;
  const lag = () => deps.sourceHealth().lag ?? { blocks: 0, seconds: 0 };
  if (chainView === undefined)
    return { head: () => store.headNumber(), storeSizeBytes: () => kv.sizeOnDisk() };
  return {
    ...chainViewMetrics(kv, chainView),
    recordsBuilds: deps.recordsBuilds ?? true,
    ...(deps.onRelay === undefined ? {} : { onRelay: deps.onRelay }),
    ...(deps.view.maxLagBlocks === undefined ? {} : { replicaLag: lag }),
    sourceCounters: () => deps.sourceHealth().counters ?? {},
    followStream: () => deps.sourceHealth().followStream,
    publisherRole: () => deps.sourceHealth().publisher,
  };
}

/** /readyz: the store, the pending view's freshness (a moving chain), and the source's health. */
function health(deps: ReaderDeps, chainView: ChainView | undefined): () => Health {
  const { kv, store } = deps.archive;
  const own =
    chainView === undefined
      ? () => {
          const reasons = storeReadiness(kv, store);
          return { live: true, ready: reasons.length === 0, reasons };
        }
      : chainViewHealth(kv, store, chainView, deps.view.flashblockIntervalMs);
  const maxLag = deps.view.maxLagBlocks;
  return () => {
    const source = deps.sourceHealth();
    let h = own();
    if (source.reasons.length > 0)
      h = { ...h, ready: false, reasons: [...h.reasons, ...source.reasons] };
    if (maxLag !== undefined) h = withinLag(h, source.lag?.blocks ?? 0, maxLag);
    return source.publisher === undefined ? h : { ...h, publisher: source.publisher };
  };
}
