// The follower's thread: it owns the archive's write side, the EVM, the upstream client and the
// flashblocks stream, so executing blocks and flashblocks never stalls the thread answering RPC.
import { parentPort, workerData } from "node:worker_threads";
import { chainSpecFromGenesis } from "../chain/genesis.ts";
import { ensureForkBase } from "../exec/chainStart.ts";
import { threadLog } from "../log/logger.ts";
import type { FlashblockUpdate, SealedUpdate } from "../pending/types.ts";
import type { Publisher } from "../replica/publisher.ts";
import { createChainStore } from "../store/chainStore.ts";
import { openKvEnv } from "../store/lmdb.ts";
import { UpstreamCallStats } from "../upstream/callStats.ts";
import { openForkReads } from "../upstream/forkReads.ts";
import type { UpstreamOptions } from "../upstream/options.ts";
import { toWire } from "../util/channel.ts";
import { isOperatorError } from "../util/errors.ts";
import { hexToBytes } from "../util/hex.ts";
import { parentChannel, tsWorkerData } from "../util/tsWorker.ts";
import { DryRun } from "./discovery.ts";
import { FlashblockStream } from "./flashblockStream.ts";
import { Follower } from "./follower.ts";
import { Prefetcher, reportingWaits } from "./prefetcher.ts";
import type {
  FollowerApi,
  FollowerHealth,
  FollowerParentApi,
  FollowerWorkerData,
} from "./protocol.ts";
import type { SequencingEventName } from "./sequencingTypes.ts";
import { transactionForwarder } from "./txForward.ts";

const channel = parentChannel<FollowerParentApi, FollowerApi>(parentPort, "the RPC thread");
const data = tsWorkerData<FollowerWorkerData>(workerData);
/** This thread's log (log/logger.ts threadLog). */
const { logger, log } = threadLog(data.logLevel, (record) => channel.emit("log", record));
/** Sequencing housekeeping (stale pending, expired early flashblocks). */
const TICK_MS = 1_000;
/** How often health is checked for a change worth telling. */
const HEALTH_MS = 500;
/** How long stopping waits for the NATS publisher (its in-flight block, the lease's release). */
const PUBLISHER_CLOSE_MS = 1_500;
/** The longest wait before an upstream call is tried again. */
const FOLLOW_MAX_BACKOFF_MS = 1_000;

async function main(): Promise<void> {
  const env = openKvEnv(data.datadir);
  const store = createChainStore(env);
  const stored = store.chainConfig();
  const spec = await chainSpecFromGenesis(stored === undefined ? data.genesis : JSON.parse(stored));
  const point = {
    chainId: BigInt(data.chainId),
    number: BigInt(data.number),
    hash: hexToBytes(data.hash),
  };
  const upstreamStats = new UpstreamCallStats();
  const reads = openForkReads(env, {
    upstream: followerUpstream(data.upstream),
    point,
    logger,
    hooks: upstreamStats.hooks,
  });
  // What a flashblock will read is fetched before it runs; the executor's own waits are told.
  const prefetch = new Prefetcher(
    store,
    reads.state,
    await DryRun.create(spec, store, reads.state),
  );
  const upstream = reportingWaits(reads.state, () => prefetch.executorWaits());
  const executor = await ensureForkBase(
    spec,
    store,
    { upstream, hashes: reads.hashes },
    {
      chainId: point.chainId,
      number: data.number,
      hash: point.hash,
      ...(data.headerRlp === undefined
        ? {}
        : {
            base: {
              headerRlp: hexToBytes(data.headerRlp),
              writes: data.contracts.map((c) => ({
                address: hexToBytes(c.address),
                code: hexToBytes(c.code),
              })),
            },
          }),
    },
  );
  // `--nats`: what is followed goes to JetStream from this thread, the archive's writer, as a
  // sequencer's does from its own; NATS is loaded only then.
  const publisher =
    data.nats === undefined
      ? undefined
      : await startFollowPublisher(data.nats, store, upstreamStats);
  const events: Partial<Record<SequencingEventName, number>> = {};
  let stoppedFor: string | undefined;
  let upstreamProblem: string | undefined;
  let stopFollowing = () => {};
  const follower = new Follower({
    store,
    executor,
    common: spec.common.copy(),
    client: reads.client,
    publish: (u: FlashblockUpdate | SealedUpdate) => {
      channel.emit("update", u);
      publisher?.onUpdate(u);
    },
    onCommitted: () => publisher?.blockCommitted(),
    log,
    onEvent: (e) => {
      events[e.name] = (events[e.name] ?? 0) + 1;
    },
    onStopped: (reason) => {
      stoppedFor = reason;
      stopFollowing();
    },
    sequencing: { maxPendingDepth: data.maxPendingDepth },
    datadir: data.datadir,
    prefetch,
  });
  let streamDown: string | undefined = "the flashblocks stream is not connected yet";
  const stream = new FlashblockStream({
    url: data.flashblocksUrl,
    readTimeoutMs: data.streamReadTimeoutMs,
    logger,
    handlers: {
      onFlashblock(fb) {
        void follower.flashblock(fb).catch((e: unknown) => {
          if (!follower.closed) log("error", "flashblock failed", { err: String(e) });
        });
        // A flashblock of a block past the next: the upstream sealed its parent, which we have
        // not imported (asked for beside the tip).
        const head = store.headNumber() ?? 0;
        if (fb.blockNumber > head + 1) catchUpSoon(fb.blockNumber - 1);
      },
      // The stream logs its own connects, disconnects and invalid frames.
      onConnect() {
        streamDown = undefined;
      },
      onDisconnect(reason) {
        streamDown = `the flashblocks stream is down (${reason.kind}: ${reason.message}); dialling again in ${reason.retryInMs} ms`;
      },
    },
  });
  let catchingUp: Promise<unknown> | undefined;
  let again = false;
  /** The newest block a flashblock showed sealed, for the next catch-up. */
  let sealedHint: number | undefined;
  const catchUpSoon = (sealed?: number) => {
    if (sealed !== undefined) sealedHint = Math.max(sealedHint ?? 0, sealed);
    if (catchingUp !== undefined) {
      again = true;
      return;
    }
    const hint = sealedHint;
    sealedHint = undefined;
    catchingUp = follower
      .catchUp(hint)
      .then(
        () => {
          upstreamProblem = undefined;
        },
        (e: unknown) => {
          if (follower.closed) return;
          upstreamProblem = `the upstream cannot be followed: ${(e as Error).message}`;
          log("warn", "following the upstream failed; trying again", { err: (e as Error).message });
        },
      )
      .finally(() => {
        catchingUp = undefined;
        if (again) {
          again = false;
          catchUpSoon();
        }
      });
  };
  const poll = setInterval(() => catchUpSoon(), data.pollMs);
  const tick = setInterval(
    () =>
      void follower.tick().catch((e: unknown) => {
        if (!follower.closed) log("error", "flashblocks housekeeping failed", { err: String(e) });
      }),
    TICK_MS,
  );
  // Following stopped for good: nothing more to ask the upstream or read from its stream.
  stopFollowing = () => {
    clearInterval(poll);
    clearInterval(tick);
    void stream.close();
    streamDown = undefined;
  };
  let said = "";
  const health = setInterval(() => {
    const reasons = [stoppedFor, upstreamProblem, streamDown, publisher?.unreachable()].filter(
      (r) => r !== undefined,
    );
    const p = publisher?.status();
    const s = stream.stats;
    const h: FollowerHealth = {
      reasons,
      lagBlocks: follower.lag(),
      events: { ...events },
      imported: { ...follower.imported, gas: follower.imported.gas.toString() },
      stream: {
        connected: stream.connected,
        connects: s.connects,
        reconnects: s.reconnects,
        disconnects: s.disconnectsBy,
        readTimeouts: s.readTimeouts,
        pingsMissed: s.pingsMissed,
        frames: s.frames,
        flashblocks: s.flashblocks,
        invalid: s.invalid,
        bytes: s.bytes,
        lastFrameAt: s.lastFrameAt,
      },
      upstream: upstreamStats.snapshot(),
      ...(p === undefined
        ? {}
        : {
            publisher: {
              role: p.role,
              id: p.id,
              connected: p.connected,
              publishedBlock: p.publishedBlock,
              flashblocksPublished: p.flashblocksPublished,
            },
          }),
    };
    const text = JSON.stringify(h);
    if (text === said) return;
    said = text;
    channel.emit("health", h);
  }, HEALTH_MS);
  channel.handle("stop", async () => {
    clearInterval(poll);
    clearInterval(tick);
    clearInterval(health);
    const streamClosed = stream.close();
    // Whatever waits on the upstream (a dead or paused one) fails now, not after its retries.
    reads.close();
    await follower.close();
    // A publisher that holds the lease hands it over as it closes; NATS never holds the stop up.
    await Promise.race([
      publisher?.close(),
      new Promise((resolve) => setTimeout(resolve, PUBLISHER_CLOSE_MS).unref()),
    ]).catch((e: unknown) => log("warn", "NATS publisher close failed", { err: String(e) }));
    await streamClosed;
    await env.close();
    return null;
  });
  channel.emit("ready", { head: store.headNumber() ?? 0, resumed: stored !== undefined });
  await follower.start();
  stream.start();
  catchUpSoon();
}

/** The publisher of a follower sharing its streams with others (one writes at a time). */
async function startFollowPublisher(
  nats: NonNullable<FollowerWorkerData["nats"]>,
  store: ReturnType<typeof createChainStore>,
  upstreamStats: UpstreamCallStats,
): Promise<Publisher> {
  const { startPublisher } = await import("../replica/publisher.ts");
  const forwarder = transactionForwarder(nats.txForward, logger, upstreamStats.hooks);
  const publisher = startPublisher({
    servers: nats.servers,
    store,
    streams: nats.streams,
    sequencer: forwarder,
    logger,
    shared: { leaseTtlMs: nats.leaseTtlMs, id: nats.id },
    connectionName: "flashnode-follower",
  });
  return {
    ...publisher,
    async close() {
      await publisher.close();
      forwarder.close();
    },
  };
}

/**
 * The follower's upstream client: its retries wait at most a second (or the first wait, if longer),
 * not the doubling to 30 s a fork's reads use, so that an upstream back from a restart is heard
 * from within a second. Each poll is a new call anyway: a dead upstream is asked about once a
 * second, not in a tight loop.
 */
function followerUpstream(o: UpstreamOptions): UpstreamOptions {
  return {
    ...o,
    maxBackoffMs: Math.min(o.maxBackoffMs, Math.max(o.retryBackoffMs, FOLLOW_MAX_BACKOFF_MS)),
  };
}

main().catch((e: unknown) =>
  channel.emit(
    "failed",
    isOperatorError(e)
      ? toWire(e)
      : { name: "Error", message: `follower failed to start: ${(e as Error).stack ?? String(e)}` },
  ),
);
