// `replica`'s chain source: a sequencer's streams over NATS JetStream. A worker thread writes
// every sealed block into this node's own archive (src/replica/blockWorker.ts: one write each,
// fsyncs off this thread); this thread applies the flashblock stream with the sequencer's rules
// (src/replica/updateConsumer.ts) and publishes it, so flashblocks are never held up behind a
// block write. Transactions go to the sequencer over NATS.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../../log/logger.ts";
import type { ChainUpdate } from "../../pending/types.ts";
import type {
  BlockParentApi,
  BlockWorkerApi,
  BlockWorkerData,
} from "../../replica/blockWorkerProtocol.ts";
import { openNatsLink } from "../../replica/natsLink.ts";
import { type StreamOptions, streamNames } from "../../replica/streams.ts";
import { forwardingTarget } from "../../replica/txForwarding.ts";
import { consumeUpdates, type UpdateConsumer } from "../../replica/updateConsumer.ts";
import { openKvEnv } from "../../store/lmdb.ts";
import { archiveProducer } from "../../store/producer.ts";
import { unlessAborted } from "../../util/abort.ts";
import { RemoteError } from "../../util/channel.ts";
import { FlashnodeError } from "../../util/errors.ts";
import { startWorkerChannel } from "../../util/tsWorker.ts";
import type { ChainSource } from "../plan.ts";
import type { Archive } from "../reader.ts";
import { openArchive } from "./archiveSource.ts";

/** Stopping waits this long for the block worker to close the archive (then the thread ends). */
const STOP_DEADLINE_MS = 10_000;

export async function startJetStreamSource(args: {
  readonly datadir: string;
  readonly servers: readonly string[];
  readonly streams: StreamOptions;
  readonly verify: boolean;
  readonly logger: Logger;
  readonly publish: (u: ChainUpdate) => void;
  /** The source cannot go on (its stream carries another chain). */
  readonly onFatal: (e: Error) => void;
  /** Aborted: the start gives up (a new archive waits for NATS to give it the chain's config). */
  readonly stop?: AbortSignal;
}): Promise<ChainSource & { readonly archive: Archive }> {
  await refuseOthersDatadir(args.datadir);
  const log = args.logger.child({ module: "replica" });
  const names = streamNames(args.streams.prefix);
  const link = openNatsLink(args.servers, "flashnode-replica", log);
  const data: BlockWorkerData = {
    datadir: args.datadir,
    servers: args.servers,
    streams: args.streams,
    verify: args.verify,
    logLevel: args.logger.level,
  };
  let updates: UpdateConsumer | undefined;
  let lag = { blocks: 0, seconds: 0 };
  let archive: Archive | undefined;
  let stopping = false;
  let configured: () => void = () => {};
  const haveConfig = new Promise<void>((resolve) => {
    configured = resolve;
  });
  // The worker committed: this thread's read snapshot must see it before updates built on it
  // apply (a revert update waiting on the flashblock stream may apply too).
  const stored = () => {
    archive?.kv.refresh();
    updates?.blockStored();
  };
  let started: Awaited<ReturnType<typeof startWorkerChannel<BlockWorkerApi, null, BlockParentApi>>>;
  try {
    started = await startWorkerChannel<BlockWorkerApi, null, BlockParentApi>(
      new URL("../../replica/blockWorker.ts", import.meta.url),
      data,
      { peer: "the block consumer", deadlineMs: STOP_DEADLINE_MS },
      // Before it starts: a snapshot restore says what it waits for while this one waits.
      (channel) => {
        channel.on("log", (m) => args.logger[m.level](m.fields, m.msg));
        channel.on("configured", () => configured());
        channel.on("lag", (l) => {
          lag = l;
        });
        channel.on("stored", stored);
        channel.on("unwound", stored);
        channel.on("fatal", (w) => args.onFatal(new RemoteError(w)));
      },
    );
  } catch (e) {
    await link.close();
    throw e;
  }
  const { worker, channel } = started;
  void channel.whenGone().then((e) => {
    if (!stopping) args.onFatal(new Error(`the replica's block consumer stopped: ${e.message}`));
  });
  const close = async () => {
    stopping = true;
    await updates?.close();
    await channel.request("stop", null).catch(() => null);
    await worker.terminate();
    await link.close();
    await archive?.kv.close();
  };
  try {
    await unlessAborted(haveConfig, args.stop);
    const opened = openArchive(args.datadir, false);
    archive = opened;
    updates = consumeUpdates({
      link,
      names,
      store: opened.store,
      publish: args.publish,
      logger: log,
    });
    const sequencer = forwardingTarget(() => link.current()?.nc, names);
    return {
      archive: opened,
      target: { submit: (raw) => sequencer.submit(raw), mine: () => sequencer.mine() },
      resumedAt: undefined,
      upstream: { label: "NATS JetStream", url: args.servers.join(",") },
      readiness: () => {
        const why = link.unreachable();
        return why === undefined ? [] : [why];
      },
      lag: () => lag,
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}

/** A replica's archive copies its sequencer's blocks: the datadir of a dev sequencer is not one. */
export class ReplicaDatadirError extends FlashnodeError {
  readonly code = "REPLICA_DATADIR";
}

/** Refuses, before anything is written, a datadir whose blocks a sequencer writes. */
async function refuseOthersDatadir(datadir: string): Promise<void> {
  if (!existsSync(join(datadir, "archive"))) return;
  const env = openKvEnv(datadir, { readOnly: true });
  try {
    const producer = archiveProducer(env);
    if (producer !== undefined && producer !== "replica")
      throw new ReplicaDatadirError(
        `${datadir} holds a chain a dev sequencer writes, not one replicated: use another --datadir for the replica`,
      );
  } finally {
    await env.close();
  }
}
