// A replica's block consumer on its own thread: it restores a snapshot when the stream no longer
// starts at block 0, then writes every sealed block of the block stream into the archive (one
// LMDB write each, executed first with --verify) and takes snapshots. Block writes and their
// fsyncs never delay the main thread, which applies flashblocks and answers RPC.
import { parentPort, workerData } from "node:worker_threads";
import { type ForwardedLevel, forwardingLogger } from "../log/logger.ts";
import { createChainStore } from "../store/chainStore.ts";
import { openKvEnv } from "../store/lmdb.ts";
import { setArchiveProducer } from "../store/producer.ts";
import { toWire } from "../util/channel.ts";
import { parentChannel, tsWorkerData } from "../util/tsWorker.ts";
import { consumeBlocks } from "./blockConsumer.ts";
import type { BlockParentApi, BlockWorkerApi, BlockWorkerData } from "./blockWorkerProtocol.ts";
import { bootstrapArchive } from "./bootstrap.ts";
import { openNatsLink } from "./natsLink.ts";
import { startSnapshotter } from "./snapshots.ts";
import { streamNames } from "./streams.ts";
import { createBlockVerifier } from "./verifier.ts";

const channel = parentChannel<BlockParentApi, BlockWorkerApi>(
  parentPort,
  "the replica's main thread",
);
const data = tsWorkerData<BlockWorkerData>(workerData);
/** How often the lag is told while nothing else is. */
const LAG_INTERVAL_MS = 250;
const forward = (level: ForwardedLevel, msg: string, fields: Record<string, unknown>) =>
  channel.emit("log", { level, msg, fields });

async function main(): Promise<void> {
  const log = forwardingLogger(data.logLevel, forward).child({ module: "replica" });
  const names = streamNames(data.streams.prefix);
  // The main thread's own connection says when NATS is out of reach: this one stays quiet.
  const link = openNatsLink(data.servers, "flashnode-replica-blocks", log, { quiet: true });
  // A stop is answered at any point, a wait for NATS (a new archive's bootstrap) included.
  const stopping = new AbortController();
  let following: { close(): Promise<void> } | undefined;
  channel.handle("stop", async () => {
    stopping.abort();
    await following?.close();
    await link.close();
    return null;
  });
  // Ready: it answers a stop from here on (the chain's config is told with "configured").
  channel.emit("ready", null);
  await bootstrapArchive({
    link,
    names,
    datadir: data.datadir,
    logger: log,
    stop: stopping.signal,
  });
  if (stopping.signal.aborted) return;
  const kv = openKvEnv(data.datadir);
  // Its blocks are the stream's (a restored snapshot was the sequencer's archive).
  setArchiveProducer(kv, "replica");
  const store = createChainStore(kv);
  const snapshots = startSnapshotter({
    link,
    names,
    env: kv,
    every: data.streams.snapshotEveryBlocks,
    replicas: data.streams.replicas,
    logger: log,
  });
  let configured = store.chainConfig() !== undefined;
  const blocks = consumeBlocks({
    link,
    names,
    store,
    logger: log,
    ...(data.verify ? { verifier: createBlockVerifier(store) } : {}),
    onBlock: (m) => {
      if (!configured && m.chainConfig !== undefined) {
        configured = true;
        channel.emit("configured", null);
      }
      channel.emit("stored", { number: m.number });
      channel.emit("lag", blocks.lag());
      snapshots.blockStored(m.number);
    },
    onUnwound: (to) => channel.emit("unwound", { to }),
    onFatal: (e) => channel.emit("fatal", toWire(e)),
  });
  // /readyz and /metrics read the lag as it is, even while no block arrives.
  const lagTimer = setInterval(() => channel.emit("lag", blocks.lag()), LAG_INTERVAL_MS);
  lagTimer.unref();
  following = {
    async close() {
      clearInterval(lagTimer);
      await blocks.close();
      await snapshots.close();
      await link.close();
      await kv.close();
    },
  };
  if (configured) channel.emit("configured", null);
  else log.info({ nats: data.servers }, "waiting for the block stream's genesis");
}

main().catch((e: unknown) => channel.emit("failed", toWire(e)));
