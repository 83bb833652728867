// Composition root of `flashnode replica`: an archive of its own that follows the sequencer's
// block stream, a pending view from its flashblock stream (both over NATS JetStream), and the
// same RPC as the sequencer's node; transactions go to the sequencer over NATS request/reply.
import { decodeHeader } from "../chain/blockView.ts";
import { trailingForkchoice } from "../chain/forkchoice.ts";
import { chainSpecFromGenesis } from "../chain/genesis.ts";
import { CallClient } from "../exec/callClient.ts";
import { createFeedHub } from "../feed/hub.ts";
import type { Logger } from "../log/logger.ts";
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
import type { RunningServer } from "./archiveServer.ts";
import { createBackend } from "./backendFactory.ts";
import { createChainFollower, followerHealth, followerMetrics } from "./chainFollower.ts";
import { type FrontendOptions, startFrontend } from "./frontend.ts";

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
};

export async function startReplicaNode(opts: ReplicaNodeOptions): Promise<RunningServer> {
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
  const snapshots: Snapshotter = startSnapshotter({
    link,
    names,
    env: kv,
    every: opts.streams.snapshotEveryBlocks,
    replicas: opts.streams.replicas,
    logger: log,
  });
  const undo = async () => {
    await blocks?.close();
    await snapshots.close();
    await calls?.stop();
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
    });
    if (store.chainConfig() === undefined)
      log.info({ nats: opts.nats }, "waiting for the block stream's genesis");
    await haveConfig;
    const spec = await chainSpecFromGenesis(JSON.parse(store.chainConfig()!));
    calls = await CallClient.start({ datadir: opts.datadir });
    const callClient = calls;
    const chain = createChainFollower({
      kv,
      store,
      feed,
      decodeHeader: (rlp) => decodeHeader(spec.common, rlp),
      forward: (u) => callClient.forward(u),
    });
    const updates = followUpdates({ link, names, store, chain, logger: log });
    onBlock = updates.blockStored;
    const sequencer = forwardingTarget(() => link.current()?.nc, names);
    const backend = createBackend(spec, store, {
      pending: chain.pending,
      transactions: {
        submit: (raw) => sequencer.submit(raw),
        poolNonce: () => undefined,
        mine: () => sequencer.mine(),
        waitForReceipt: (hash, ms) => chain.waitForInclusion(hash, ms),
      },
      calls: callClient,
      preconfirmedReceipts: true,
      forkchoice: trailingForkchoice(opts.safeDepth, opts.finalizedDepth),
    });
    const following = blocks;
    const health = followerHealth(kv, store, chain, opts.flashblockIntervalMs);
    const frontend = await startFrontend({
      options: opts.frontend,
      methods: createMethods(backend),
      feed,
      logger: opts.logger,
      metricsSources: { ...followerMetrics(kv, store, chain), replicaLag: following.lag },
      health: () => {
        const h = health();
        const behind = following.lag().blocks;
        if (behind <= opts.maxLagBlocks) return h;
        const reason = `${behind} blocks behind the block stream (at most ${opts.maxLagBlocks})`;
        return { ...h, ready: false, reasons: [...h.reasons, reason] };
      },
    });
    return {
      url: frontend.url,
      dedicatedUrl: frontend.dedicatedUrl,
      server: frontend.server,
      async close() {
        await frontend.close();
        await updates.close();
        await undo();
      },
    };
  } catch (e) {
    await undo();
    throw e;
  }
}
