// `replica`'s chain source: a sequencer's streams over NATS JetStream. Every sealed block is
// written into this node's own archive (one write each), and the flashblock stream is applied
// with the sequencer's rules (src/replica/). Transactions go to the sequencer over NATS.
import type { Logger } from "../../log/logger.ts";
import type { ChainUpdate } from "../../pending/types.ts";
import { type BlockFollower, followBlocks } from "../../replica/blockFollower.ts";
import { bootstrapArchive } from "../../replica/bootstrap.ts";
import { openNatsLink } from "../../replica/natsLink.ts";
import { type Snapshotter, startSnapshotter } from "../../replica/snapshots.ts";
import { type StreamOptions, streamNames } from "../../replica/streams.ts";
import { forwardingTarget } from "../../replica/txForwarding.ts";
import { followUpdates, type UpdateFollower } from "../../replica/updateFollower.ts";
import { createBlockVerifier } from "../../replica/verifier.ts";
import { createChainStore } from "../../store/chainStore.ts";
import { openKvEnv } from "../../store/lmdb.ts";
import type { ChainSource } from "../plan.ts";
import type { Archive } from "../reader.ts";

export async function startJetStreamSource(args: {
  readonly datadir: string;
  readonly servers: readonly string[];
  readonly streams: StreamOptions;
  readonly verify: boolean;
  readonly logger: Logger;
  readonly publish: (u: ChainUpdate) => void;
  /** The source cannot go on (its stream carries another chain). */
  readonly onFatal: (e: Error) => void;
}): Promise<ChainSource & { readonly archive: Archive }> {
  const log = args.logger.child({ module: "replica" });
  const names = streamNames(args.streams.prefix);
  const link = openNatsLink(args.servers, "flashnode-replica", log);
  try {
    await bootstrapArchive({ link, names, datadir: args.datadir, logger: log });
  } catch (e) {
    await link.close();
    throw e;
  }
  const kv = openKvEnv(args.datadir);
  const store = createChainStore(kv);
  let updates: UpdateFollower | undefined;
  let blocks: BlockFollower | undefined;
  const snapshots: Snapshotter = startSnapshotter({
    link,
    names,
    env: kv,
    every: args.streams.snapshotEveryBlocks,
    replicas: args.streams.replicas,
    logger: log,
  });
  const close = async () => {
    await updates?.close();
    await blocks?.close();
    await snapshots.close();
    await link.close();
    await kv.close();
  };
  try {
    let configured: () => void = () => {};
    const haveConfig = new Promise<void>((resolve) => {
      configured = resolve;
    });
    if (store.chainConfig() !== undefined) configured();
    blocks = followBlocks({
      link,
      names,
      store,
      logger: log,
      ...(args.verify ? { verifier: createBlockVerifier(store) } : {}),
      onBlock: (m) => {
        if (m.chainConfig !== undefined) configured();
        updates?.blockStored();
        snapshots.blockStored(m.number);
      },
      // A revert update waiting on the flashblock stream may apply now.
      onUnwound: () => updates?.blockStored(),
      onFatal: args.onFatal,
    });
    if (store.chainConfig() === undefined)
      log.info({ nats: args.servers }, "waiting for the block stream's genesis");
    await haveConfig;
    updates = followUpdates({
      link,
      names,
      store,
      publish: args.publish,
      logger: log,
    });
    const sequencer = forwardingTarget(() => link.current()?.nc, names);
    const following = blocks;
    return {
      archive: { kv, store },
      target: { submit: (raw) => sequencer.submit(raw), mine: () => sequencer.mine() },
      resumedAt: undefined,
      upstream: { label: "NATS JetStream", url: args.servers.join(",") },
      readiness: () => {
        const why = link.unreachable();
        return why === undefined ? [] : [why];
      },
      lag: () => following.lag(),
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
