// The primary of a node served by several processes (`--rpc-workers N`): it forks N readers
// (node:cluster children sharing the listening socket) and speaks with each over the one channel.
// It hands them the chain's updates (the block so far to one that joins, then each new one,
// after writing the position fence), runs their transactions and dev requests through the chain
// source and answers only once every reader shows the change, relays what their rate limiters
// spend, sums their metrics, routes filter polls to the reader that holds the filter, and
// replaces a reader that dies: its clients see connection errors only.
import cluster, { type Worker } from "node:cluster";
import { AggregatorRegistry } from "prom-client";
import type { Logger } from "../log/logger.ts";
import { updatePosition } from "../pending/types.ts";
import { withLaidOutDiffs } from "../pending/updateLayers.ts";
import { ServerError } from "../services/errors.ts";
import { Channel, clusterWorkerEndpoint } from "../util/channel.ts";
import { FlashnodeError } from "../util/errors.ts";
import type { ChainTarget } from "./plan.ts";
import type { PositionFence } from "./positionFence.ts";
import {
  encodeUpdates,
  type PrimaryApi,
  type ReaderApi,
  type SourceHealth,
} from "./readerProtocol.ts";
import { READER_ENV, READER_SLOT_ENV } from "./readerSlot.ts";
import type { UpdateStream } from "./updateStream.ts";

/** A dev request (or a transaction) is answered once every reader shows it, or after this. */
const SETTLE_DEADLINE_MS = 2_000;
/** A filter poll forwarded to the reader holding the filter waits this long at most. */
const FILTER_CALL_DEADLINE_MS = 5_000;
/** Requests readers make of the primary that run the chain source (mine, dev requests). */
const TARGET_DEADLINE_MS = 60_000;
/** How often readers are told the source's health. */
const HEALTH_INTERVAL_MS = 250;

export type ReaderHost = {
  readonly url: string;
  readonly dedicatedUrl: string;
  /** Reader process ids, current ones. */
  pids(): number[];
  close(): Promise<void>;
};

type Reader = {
  readonly child: Worker;
  readonly slot: number;
  readonly channel: Channel<ReaderApi, PrimaryApi>;
  /** State events sent to it, and how many it has applied. */
  sent: number;
  applied: number;
  following: boolean;
};

export async function startReaderHost(opts: {
  readonly readers: number;
  readonly argv: readonly string[];
  /** Added to each reader's environment (the plan's readerEnv: a generated API key). */
  readonly env: Readonly<Record<string, string>>;
  readonly logger: Logger;
  /** The chain's updates (absent: the archive does not move, as in `serve`). */
  readonly stream: UpdateStream | undefined;
  readonly fence: PositionFence | undefined;
  readonly target: ChainTarget | undefined;
  readonly health: () => SourceHealth;
}): Promise<ReaderHost> {
  const log = opts.logger.child({ module: "readers" });
  cluster.setupPrimary({ args: [...opts.argv], silent: false, serialization: "advanced" });
  const readers = new Map<Worker, Reader>();
  const bySlot = new Map<number, Reader>();
  const settleWaiters: Array<{ until: Map<Reader, number>; resolve(): void }> = [];
  let closing = false;

  const checkSettled = () => {
    for (let i = settleWaiters.length - 1; i >= 0; i--) {
      const w = settleWaiters[i]!;
      let done = true;
      for (const [r, seq] of w.until) if (readers.has(r.child) && r.applied < seq) done = false;
      if (done) {
        settleWaiters.splice(i, 1);
        w.resolve();
      }
    }
  };
  /** Resolves once every following reader has applied what it was sent so far. */
  const settle = (): Promise<void> => {
    const until = new Map<Reader, number>();
    for (const r of readers.values()) if (r.following && r.applied < r.sent) until.set(r, r.sent);
    if (until.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const i = settleWaiters.indexOf(waiter);
        if (i >= 0) settleWaiters.splice(i, 1);
        log.warn({ ms: SETTLE_DEADLINE_MS }, "a reader did not apply an update in time");
        resolve();
      }, SETTLE_DEADLINE_MS);
      const waiter = {
        until,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      settleWaiters.push(waiter);
    });
  };
  const settled = <T>(work: Promise<T>): Promise<T> =>
    work.then(async (value) => {
      await settle();
      return value;
    });

  // The chain's updates: the fence first (a reader asked after this waits for it), then each
  // following reader, all sent the same bytes (serialized once, the state diff laid out).
  const unsubscribe = opts.stream?.subscribe((u, catchUp) => {
    if (catchUp) return; // a joining reader gets the block so far in its join answer
    opts.fence?.write(updatePosition(u));
    let message: Uint8Array | undefined;
    for (const r of readers.values()) {
      if (!r.following) continue;
      message ??= encodeUpdates({
        updates: [withLaidOutDiffs(u)],
        sentAt: performance.timeOrigin + performance.now(),
      });
      r.sent++;
      r.channel.emit("updates", message);
    }
  });
  opts.target?.poolNonces?.onChange((sender, nonce) => {
    const entries = [[Buffer.from(sender).toString("hex"), nonce] as const];
    for (const r of readers.values()) {
      if (!r.following) continue;
      r.sent++;
      r.channel.emit("poolNonces", entries);
    }
  });
  const healthTimer = setInterval(() => {
    const health = opts.health();
    for (const r of readers.values()) if (r.following) r.channel.emit("health", health);
  }, HEALTH_INTERVAL_MS);
  healthTimer.unref();

  const aggregate = async (): Promise<string> => {
    const all = await Promise.all(
      [...readers.values()].map((r) => r.channel.request("registry", null).catch(() => [])),
    );
    return AggregatorRegistry.aggregate(all).metrics();
  };

  const serve = (r: Reader) => {
    const ch = r.channel;
    const target = () => {
      if (opts.target === undefined) throw new ServerError("this node takes no transactions");
      return opts.target;
    };
    ch.handle("join", () => {
      // The join answer and the events after it leave in order: nothing missed or doubled.
      r.following = true;
      r.sent = 1;
      return {
        poolNonces: opts.target?.poolNonces?.entries() ?? [],
        updates: (opts.stream?.currentBlock() ?? []).map(withLaidOutDiffs),
        health: opts.health(),
        serves: {
          transactions: opts.target !== undefined,
          pool: opts.target?.poolContent !== undefined,
          control: opts.target?.control !== undefined,
        },
      };
    });
    ch.handle("submit", (raw) => settled(target().submit(raw)).then((r) => r.hash));
    ch.handle("mine", () => settled(target().mine()));
    // A reader offers these only where the join answer said the source serves them.
    ch.handle("pool", () => {
      const t = target();
      if (t.poolContent === undefined) throw new ServerError("this node keeps no pool");
      return t.poolContent();
    });
    ch.handle("control", (request) => {
      const t = target();
      if (t.control === undefined) throw new ServerError("this node runs no sequencer");
      return settled(t.control(request));
    });
    ch.handle("settle", () => settle().then(() => null));
    ch.handle("metrics", aggregate);
    ch.handle("filterCall", ({ slot, method, filterId }) => {
      const holder = bySlot.get(slot);
      if (holder === undefined) throw new ServerError("filter not found");
      return holder.channel
        .request("filterCall", { method, filterId }, FILTER_CALL_DEADLINE_MS)
        .catch((e: unknown) => {
          // The holder died or hangs: its filters are gone with it.
          if (e instanceof FlashnodeError && (e.code === "PEER_GONE" || e.code === "DEADLINE"))
            throw new ServerError("filter not found");
          throw e;
        });
    });
    ch.on("applied", (n) => {
      r.applied = n;
      checkSettled();
    });
    ch.on("spent", (entries) => {
      for (const other of readers.values())
        if (other !== r && other.following) other.channel.emit("charge", entries);
    });
  };

  const fork = (slot: number): Promise<{ url: string; dedicatedUrl: string }> => {
    const child = cluster.fork({
      ...opts.env,
      [READER_ENV]: String(opts.readers),
      [READER_SLOT_ENV]: String(slot),
    });
    const channel = new Channel<ReaderApi, PrimaryApi>(clusterWorkerEndpoint(child), {
      peer: `reader ${slot}`,
      deadlineMs: TARGET_DEADLINE_MS,
    });
    const reader: Reader = { child, slot, channel, sent: 0, applied: 0, following: false };
    readers.set(child, reader);
    bySlot.set(slot, reader);
    serve(reader);
    const listening = new Promise<{ url: string; dedicatedUrl: string }>((resolve, reject) => {
      channel.on("listening", resolve);
      void channel
        .whenGone()
        .then((e) => reject(new Error(`reader ${slot} did not start: ${e.message}`)));
    });
    void channel.whenGone().then((e) => {
      readers.delete(child);
      if (bySlot.get(slot) === reader) bySlot.delete(slot);
      checkSettled();
      if (closing) return;
      log.warn({ pid: child.process.pid, reason: e.message }, "reader exited; starting another");
      fork(slot).catch((err: unknown) => log.error({ err }, "reader failed to start"));
    });
    return listening;
  };

  let first: { url: string; dedicatedUrl: string };
  try {
    [first] = (await Promise.all(
      Array.from({ length: opts.readers }, (_, slot) => fork(slot)),
    )) as [{ url: string; dedicatedUrl: string }];
  } catch (e) {
    closing = true;
    for (const r of readers.values()) r.child.kill();
    unsubscribe?.();
    clearInterval(healthTimer);
    throw e;
  }
  return {
    url: first.url,
    dedicatedUrl: first.dedicatedUrl,
    pids: () => [...readers.keys()].map((w) => w.process.pid ?? 0),
    async close() {
      closing = true;
      unsubscribe?.();
      clearInterval(healthTimer);
      await Promise.all(
        [...readers.values()].map(
          (r) =>
            new Promise<void>((resolve) => {
              if (r.child.isDead()) resolve();
              else {
                r.child.once("exit", () => resolve());
                r.child.kill("SIGTERM");
              }
            }),
        ),
      );
    },
  };
}
