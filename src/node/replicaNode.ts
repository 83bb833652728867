// Composition root of `flashnode replica`: an archive of its own that follows the sequencer's
// block stream, a pending view from its flashblock stream (both over NATS JetStream), and the
// same RPC as the sequencer's node; transactions go to the sequencer over NATS request/reply.
// With --rpc-workers N, this process follows the streams and writes the archive, and N reader
// processes serve RPC from it, fed the chain stream over IPC as dev's readers are.
import { decodeHeader } from "../chain/blockView.ts";
import { trailingForkchoice } from "../chain/forkchoice.ts";
import { chainSpecFromGenesis } from "../chain/genesis.ts";
import { CallClient } from "../exec/callClient.ts";
import type { CallLimits } from "../exec/callLimits.ts";
import { createFeedHub } from "../feed/hub.ts";
import type { Logger } from "../log/logger.ts";
import type { ChainUpdate } from "../pending/types.ts";
import { type BlockFollower, followBlocks } from "../replica/blockFollower.ts";
import { bootstrapArchive } from "../replica/bootstrap.ts";
import { openNatsLink } from "../replica/natsLink.ts";
import { type Snapshotter, startSnapshotter } from "../replica/snapshots.ts";
import type { StreamOptions } from "../replica/streams.ts";
import { streamNames } from "../replica/streams.ts";
import { forwardingTarget } from "../replica/txForwarding.ts";
import { followUpdates } from "../replica/updateFollower.ts";
import { createBlockVerifier } from "../replica/verifier.ts";
import { createMethods } from "../rpc/methods.ts";
import { createChainStore } from "../store/chainStore.ts";
import { lockDatadir } from "../store/datadir.ts";
import { openKvEnv } from "../store/lmdb.ts";
import { createBackend } from "./backendFactory.ts";
import { createChainFollower, followerHealth, followerMetrics } from "./chainFollower.ts";
import { type FrontendOptions, startFrontend } from "./frontend.ts";
import { PositionFence } from "./positionFence.ts";
import { type ReaderCluster, startReaderCluster } from "./readerCluster.ts";
import { withinLag } from "./readiness.ts";
import { createUpdateRelay, type UpdateRelay } from "./updateRelay.ts";

/** How often the primary tells its readers the lag (their /metrics and /readyz). */
const LAG_INTERVAL_MS = 250;

export type ReplicaNodeOptions = {
  readonly datadir: string;
  readonly nats: readonly string[];
  readonly streams: StreamOptions;
  readonly frontend: FrontendOptions;
  readonly logger: Logger;
  readonly flashblockIntervalMs: number;
  readonly safeDepth: number;
  readonly finalizedDepth: number;
  /** /readyz says not ready while the archive is more blocks than this behind the stream. */
  readonly maxLagBlocks: number;
  /** Execute every block with the EVM and refuse one whose roots differ (`--verify`). */
  readonly verify?: boolean;
  /** --rpc-gascap, --rpc-evmtimeout (geth's defaults when absent). */
  readonly callLimits?: CallLimits;
  /** `--rpc-workers N` (N > 1): reader processes running this CLI with `argv` serve RPC. */
  readonly readers?: { readonly count: number; readonly argv: readonly string[] };
};

export type ReplicaNode = {
  readonly url: string;
  readonly dedicatedUrl: string;
  /** The processes serving RPC (this one, or the --rpc-workers readers). */
  readerPids(): number[];
  close(): Promise<void>;
};

export async function startReplicaNode(opts: ReplicaNodeOptions): Promise<ReplicaNode> {
  const lock = lockDatadir(opts.datadir);
  const log = opts.logger.child({ module: "replica" });
  const names = streamNames(opts.streams.prefix);
  const link = openNatsLink(opts.nats, "flashnode-replica", log);
  try {
    await bootstrapArchive({ link, names, datadir: opts.datadir, logger: log });
  } catch (e) {
    await link.close();
    lock.release();
    throw e;
  }
  const kv = openKvEnv(opts.datadir);
  const store = createChainStore(kv);
  const feed = createFeedHub();
  let onBlock: () => void = () => {};
  let configured: () => void = () => {};
  const haveConfig = new Promise<void>((resolve) => {
    configured = resolve;
  });
  if (store.chainConfig() !== undefined) configured();
  let blocks: BlockFollower | undefined;
  let calls: CallClient | undefined;
  let fence: PositionFence | undefined;
  let cluster: ReaderCluster | undefined;
  let lagTimer: NodeJS.Timeout | undefined;
  const snapshots: Snapshotter = startSnapshotter({
    link,
    names,
    env: kv,
    every: opts.streams.snapshotEveryBlocks,
    replicas: opts.streams.replicas,
    logger: log,
  });
  const undo = async () => {
    clearInterval(lagTimer);
    await cluster?.close();
    await blocks?.close();
    await snapshots.close();
    await calls?.stop();
    fence?.close();
    await link.close();
    await kv.close();
    lock.release();
  };
  try {
    blocks = followBlocks({
      link,
      names,
      store,
      logger: log,
      ...(opts.verify === true ? { verifier: createBlockVerifier(store) } : {}),
      onBlock: (m) => {
        if (m.chainConfig !== undefined) configured();
        onBlock();
        snapshots.blockStored(m.number);
      },
      // A revert update waiting on the flashblock stream may apply now.
      onUnwound: () => onBlock(),
    });
    if (store.chainConfig() === undefined)
      log.info({ nats: opts.nats }, "waiting for the block stream's genesis");
    await haveConfig;
    const spec = await chainSpecFromGenesis(JSON.parse(store.chainConfig()!));
    const sequencer = forwardingTarget(() => link.current()?.nc, names);
    const following = blocks;
    // With readers, this process only follows: its updates go to them, not to a call worker.
    let relay: UpdateRelay | undefined;
    if (opts.readers === undefined)
      calls = await CallClient.start(
        {
          datadir: opts.datadir,
          ...(opts.callLimits === undefined ? {} : { limits: opts.callLimits }),
        },
        log,
      );
    else {
      fence = PositionFence.create(opts.datadir);
      relay = createUpdateRelay(sequencer, fence, log);
    }
    const forwardTo: ((u: ChainUpdate) => void) | undefined =
      relay?.publish ?? (calls === undefined ? undefined : calls.forward.bind(calls));
    const chain = createChainFollower({
      kv,
      store,
      feed,
      decodeHeader: (rlp) => decodeHeader(spec.common, rlp),
      ...(forwardTo === undefined ? {} : { forward: forwardTo }),
    });
    const updates = followUpdates({ link, names, store, chain, logger: log });
    onBlock = updates.blockStored;
    const stopFollowing = async () => {
      await updates.close();
      await undo();
    };

    if (relay !== undefined && opts.readers !== undefined) {
      const toReaders = relay;
      lagTimer = setInterval(
        () => toReaders.broadcast({ type: "flashnode:lag", ...following.lag() }),
        LAG_INTERVAL_MS,
      );
      cluster = await startReaderCluster({
        readers: opts.readers.count,
        argv: opts.readers.argv,
        logger: opts.logger,
        onMessage: toReaders.onMessage,
        onExit: toReaders.onExit,
      });
      const readers = cluster;
      log.info(
        { url: readers.url, readers: opts.readers.count, pids: readers.pids() },
        "serving JSON-RPC",
      );
      return {
        url: readers.url,
        dedicatedUrl: readers.dedicatedUrl,
        readerPids: readers.pids,
        close: stopFollowing,
      };
    }

    const backend = createBackend(spec, store, {
      feed,
      pending: chain.pending,
      transactions: {
        submit: (raw) => sequencer.submit(raw),
        poolNonce: () => undefined,
        mine: () => sequencer.mine(),
        waitForReceipt: (hash, ms) => chain.waitForInclusion(hash, ms),
      },
      ...(calls === undefined ? {} : { calls }),
      preconfirmedReceipts: true,
      forkchoice: trailingForkchoice(opts.safeDepth, opts.finalizedDepth),
      timeline: chain.timeline,
    });
    const health = followerHealth(kv, store, chain, opts.flashblockIntervalMs);
    const frontend = await startFrontend({
      options: opts.frontend,
      methods: createMethods(backend),
      feed,
      logger: opts.logger,
      metricsSources: { ...followerMetrics(kv, store, chain), replicaLag: following.lag },
      health: () => withinLag(health(), following.lag().blocks, opts.maxLagBlocks),
    });
    return {
      url: frontend.url,
      dedicatedUrl: frontend.dedicatedUrl,
      readerPids: () => [process.pid],
      async close() {
        await frontend.close();
        await stopFollowing();
      },
    };
  } catch (e) {
    await undo();
    throw e;
  }
}
