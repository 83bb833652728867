// One reader: what answers JSON-RPC, the same in every role and whether it runs in the node's
// own process or in one of its --rpc-workers processes. It follows the chain's updates (when
// the chain moves) into a pending view and a head, runs calls on its call worker, hands
// transactions and dev requests to the chain source, and serves HTTP, WebSocket and
// /flashblocks from the archive.
import { decodeHeader } from "../chain/blockView.ts";
import { trailingForkchoice } from "../chain/forkchoice.ts";
import type { ChainSpec } from "../chain/genesis.ts";
import type { Health } from "../edge/edgeServer.ts";
import { CallClient } from "../exec/callClient.ts";
import type { CallLimits } from "../exec/callLimits.ts";
import { createDevSigner } from "../exec/devSigner.ts";
import { createFeedHub } from "../feed/hub.ts";
import type { Logger } from "../log/logger.ts";
import type { MetricsSources } from "../metrics/metrics.ts";
import type { FlashblockStats } from "../pending/flashblockStats.ts";
import type { PendingBlock } from "../pending/pendingBlock.ts";
import type { ChainUpdate } from "../pending/types.ts";
import type { MethodRegistry } from "../rpc/method.ts";
import { createMethods } from "../rpc/methods.ts";
import type { TransactionSink } from "../services/transactions.ts";
import type { ChainStore } from "../store/chainStore.ts";
import type { KvEnv } from "../store/lmdb.ts";
import { perRun } from "../util/perRun.ts";
import { createBackend } from "./backendFactory.ts";
import {
  type ChainFollower,
  createChainFollower,
  followerHealth,
  followerMetrics,
} from "./chainFollower.ts";
import { type FrontendOptions, startFrontend } from "./frontend.ts";
import type { ChainTarget, ViewOptions } from "./plan.ts";
import type { PositionFence } from "./positionFence.ts";
import type { ReaderLink } from "./readerLink.ts";
import type { SourceHealth } from "./readerProtocol.ts";
import { storeReadiness, withinLag } from "./readiness.ts";

/** How long a call waits for an update the fence says another reader may have shown. */
const FENCE_WAIT_MS = 250;

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
   * flashblock stream; on a quiet chain, blocks its block follower stores meanwhile (catching
   * up) stay unseen until then, and the worker's start used to give that catch-up its time.
   */
  readonly callWorkerFirst?: boolean;
  /** Whether this reader records each flashblock's build time (one reader does, for the node). */
  readonly recordsBuilds?: boolean;
  /** Listens for each update's delay from the primary to this reader. */
  readonly onRelay?: (listener: (lagMs: number) => void) => void;
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
  const { archive, spec, view } = deps;
  const { kv, store } = archive;
  // The call worker starts once the reader serves (reads need no EVM); calls wait for it.
  const calls = new CallClient(
    {
      datadir: deps.datadir,
      ...(deps.readOnly ? { readOnly: true } : {}),
      ...(view.gasCeil === undefined ? {} : { gasCeil: view.gasCeil.toString() }),
      ...(deps.callLimits === undefined ? {} : { limits: deps.callLimits }),
    },
    deps.logger,
  );
  try {
    if (deps.callWorkerFirst === true) await calls.start();
    const feed = deps.follow === undefined ? undefined : createFeedHub();
    let follower: ChainFollower | undefined;
    if (deps.follow !== undefined && feed !== undefined) {
      const chain = createChainFollower({
        kv,
        store,
        feed,
        decodeHeader: (rlp) => decodeHeader(spec.common, rlp),
        forward: (u) => calls.forward(u),
      });
      follower = chain;
      deps.follow((u, catchUp) => chain.apply(u, catchUp));
    }
    const backend = createBackend(spec, store, {
      calls,
      ...(feed === undefined ? {} : { feed }),
      ...(follower === undefined
        ? {}
        : { pending: follower.pending, head: follower.head, timeline: follower.timeline }),
      ...(deps.target === undefined || follower === undefined
        ? {}
        : { transactions: transactionSink(deps.target, follower, view) }),
      ...(view.accounts === undefined
        ? {}
        : {
            signer: createDevSigner(
              spec,
              view.accounts.filter((a) => spec.alloc.has(a.address.slice(2).toLowerCase())),
            ),
          }),
      preconfirmedReceipts: view.receipts === "preconfirmed",
      ...(view.forkchoice.kind === "trailing"
        ? { forkchoice: trailingForkchoice(view.forkchoice.safe, view.forkchoice.finalized) }
        : {}),
    });
    const created = createMethods(backend);
    const methods =
      deps.fence === undefined || follower === undefined
        ? created
        : fenced(created, deps.fence, follower);
    const frontend = await startFrontend({
      options: deps.frontend,
      methods,
      feed,
      logger: deps.logger,
      ...(deps.link === undefined ? {} : { link: deps.link }),
      metricsSources: metricsSources(deps, follower),
      health: health(deps, follower),
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
      pending: () => follower?.pending(),
      stats: follower?.stats,
      async close() {
        await frontend.close();
        await calls.stop();
      },
    };
  } catch (e) {
    await calls.stop();
    throw e;
  }
}

function transactionSink(
  target: ReaderTarget,
  follower: ChainFollower,
  view: ViewOptions,
): TransactionSink {
  return {
    submit: (raw) => target.submit(raw),
    poolNonce: (address) => target.poolNonces?.get(address),
    mine: () => target.mine(),
    ...(target.poolContent === undefined ? {} : { poolContent: () => target.poolContent!() }),
    ...(target.control === undefined ? {} : { control: (r) => target.control!(r) }),
    async waitForReceipt(hash, ms) {
      const seen =
        view.receipts === "sealed"
          ? await follower.waitUntilSealed(hash, ms)
          : await follower.waitForInclusion(hash, ms);
      // Read-your-writes on any connection: every reader shows it before the answer goes.
      if (seen) await target.settle?.();
      return seen;
    },
  };
}

function metricsSources(deps: ReaderDeps, follower: ChainFollower | undefined): MetricsSources {
  const { kv, store } = deps.archive;
  const lag = () => deps.sourceHealth().lag ?? { blocks: 0, seconds: 0 };
  if (follower === undefined)
    return { head: () => store.headNumber(), storeSizeBytes: () => kv.sizeOnDisk() };
  return {
    ...followerMetrics(kv, follower),
    recordsBuilds: deps.recordsBuilds ?? true,
    ...(deps.onRelay === undefined ? {} : { onRelay: deps.onRelay }),
    ...(deps.view.maxLagBlocks === undefined ? {} : { replicaLag: lag }),
  };
}

/** /readyz: the store, the pending view's freshness (a moving chain), and the source's health. */
function health(deps: ReaderDeps, follower: ChainFollower | undefined): () => Health {
  const { kv, store } = deps.archive;
  const own =
    follower === undefined
      ? () => {
          const reasons = storeReadiness(kv, store);
          return { live: true, ready: reasons.length === 0, reasons };
        }
      : followerHealth(kv, store, follower, deps.view.flashblockIntervalMs);
  const maxLag = deps.view.maxLagBlocks;
  return () => {
    const source = deps.sourceHealth();
    let h = own();
    if (source.reasons.length > 0)
      h = { ...h, ready: false, reasons: [...h.reasons, ...source.reasons] };
    if (maxLag !== undefined) h = withinLag(h, source.lag?.blocks ?? 0, maxLag);
    return h;
  };
}

/**
 * Each call first catches up with the fence: another reader may already have shown a newer
 * flashblock or head to the same client. Caught up (nearly always), the call runs as it is.
 * The fence is read once per synchronous run (a batch's calls share the read): every call of a
 * run was sent before its client saw any answer of it, so a newer position written meanwhile
 * cannot have been shown to that client.
 */
function fenced(
  methods: MethodRegistry,
  fence: PositionFence,
  follower: ChainFollower,
): MethodRegistry {
  const fencePosition = perRun(() => fence.read());
  const out: Record<string, MethodRegistry[string]> = {};
  for (const [name, def] of Object.entries(methods)) {
    const handler = def.handler;
    out[name] = {
      ...def,
      handler: (args, ctx) => {
        const at = fencePosition();
        if (at <= follower.position()) return handler(args, ctx);
        return follower.waitForPosition(at, FENCE_WAIT_MS).then(() => handler(args, ctx));
      },
    };
  }
  return out;
}
