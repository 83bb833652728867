// One NATS connection that never gives up: started in the background (a node starts whether or
// not NATS is up), reconnecting for ever, and telling its users when it is usable. While it is
// not, it says so: a warning within two seconds, repeated while it lasts, and `unreachable()`
// for /readyz.
import {
  type JetStreamClient,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
  StorageType,
} from "@nats-io/jetstream";
import {
  connect,
  headers,
  type MsgHdrs,
  type NatsConnection,
  nanos,
} from "@nats-io/transport-node";
import type { Logger } from "../log/logger.ts";
import { watchDown } from "./downWatch.ts";
import { completesMessage, PART_HEADER } from "./parts.ts";
import { HEADER, type StreamNames, type StreamOptions } from "./streams.ts";

export type NatsContext = {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  headers(values: Readonly<Record<string, string>>): MsgHdrs;
  /** Creates the two streams when absent (an existing stream is left as it is). */
  ensureStreams(names: StreamNames, options: StreamOptions): Promise<void>;
  /** The number of the newest block in the block stream, if any. */
  lastBlock(names: StreamNames): Promise<number | undefined>;
  /** The number of the oldest block the block stream still holds, if any. */
  firstBlock(names: StreamNames): Promise<number | undefined>;
};

export type NatsLink = {
  /**
   * Resolves once connected (again); rejects when the link closes, or when `stop` aborts (its
   * user is closing: a loop waiting here ends without waiting for the link's own close).
   */
  ready(stop?: AbortSignal): Promise<NatsContext>;
  /** The context while connected, else undefined. */
  current(): NatsContext | undefined;
  /** Called after each reconnection (the server may have restarted and lost its consumers). */
  onReconnect(listener: () => void): void;
  /** Why NATS cannot be used now (it has been unreachable a while); undefined: connected. */
  unreachable(): string | undefined;
  /** Runs `start` on each (re)connection to a new connection; returns a stop function. */
  whenConnected(start: (nc: NatsConnection) => () => void): () => void;
  close(): Promise<void>;
};

const DUPLICATE_WINDOW_MS = 2 * 60_000;

function contextOf(nc: NatsConnection, jsm: JetStreamManager): NatsContext {
  const blockAt = async (stream: string, seq: number) => {
    const m = await jsm.streams.getMessage(stream, { seq });
    const n = m?.header.get(HEADER.block);
    return n === undefined || n === "" ? undefined : Number(n);
  };
  return {
    nc,
    js: jetstream(nc),
    jsm,
    headers(values) {
      const h = headers();
      for (const [k, v] of Object.entries(values)) h.set(k, v);
      return h;
    },
    async ensureStreams(names, o) {
      const want = [
        { name: names.blocks, subjects: [names.blockSubjects], maxAgeMs: o.blockRetentionMs },
        {
          name: names.flashblocks,
          subjects: [names.flashblockSubject],
          maxAgeMs: o.flashblockRetentionMs,
        },
      ];
      for (const s of want) {
        const exists = await jsm.streams.info(s.name).then(
          () => true,
          () => false,
        );
        if (exists) continue;
        await jsm.streams.add({
          name: s.name,
          subjects: s.subjects,
          storage: StorageType.File,
          num_replicas: o.replicas,
          max_age: nanos(s.maxAgeMs),
          // The server refuses a duplicate window longer than the retention.
          duplicate_window: nanos(
            s.maxAgeMs > 0 ? Math.min(DUPLICATE_WINDOW_MS, s.maxAgeMs) : DUPLICATE_WINDOW_MS,
          ),
        });
      }
    },
    async lastBlock(names) {
      const info = await jsm.streams.info(names.blocks);
      if (info.state.messages === 0) return undefined;
      const m = await jsm.streams.getMessage(names.blocks, { seq: info.state.last_seq });
      const n = m?.header.get(HEADER.block);
      if (n === undefined || n === "") return undefined;
      // The parts of a block cut short (its publisher stopped between them): not published yet.
      if (completesMessage(m?.header.get(PART_HEADER))) return Number(n);
      return Number(n) > 0 ? Number(n) - 1 : undefined;
    },
    async firstBlock(names) {
      const info = await jsm.streams.info(names.blocks);
      return info.state.messages === 0 ? undefined : blockAt(names.blocks, info.state.first_seq);
    },
  };
}

/** How often a connection pings its server (two unanswered: the server is gone). */
export const NATS_PING_MS = 1_000;

export function openNatsLink(
  servers: readonly string[],
  name: string,
  log: Logger,
  /** `quiet`: another connection of the process says when NATS is out of reach. */
  options: { readonly quiet?: boolean } = {},
): NatsLink {
  let closed = false;
  let ctx: NatsContext | undefined;
  const where = servers.join(",");
  // Out of reach from the start until connected, and after each disconnection.
  const downWatch = watchDown({
    where,
    warn: (seconds) => {
      if (closed || options.quiet === true) return;
      log.warn(
        { servers: where, seconds },
        `cannot reach NATS at ${where} (for ${seconds} s): retrying`,
      );
    },
  });
  downWatch.down();
  let waiters: Array<{ resolve(c: NatsContext): void; reject(e: Error): void }> = [];
  const starters = new Set<(nc: NatsConnection) => () => void>();
  const reconnectListeners: Array<() => void> = [];
  const stops: Array<() => void> = [];
  const up = (c: NatsContext) => {
    ctx = c;
    downWatch.up();
    for (const w of waiters) w.resolve(c);
    waiters = [];
  };
  const connection = (async () => {
    const nc = await connect({
      servers: [...servers],
      name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      // A server cut off the network closes nothing: without a ping answered, the connection
      // looks alive for minutes (the default: every 2 min, 2 missed). Two missed pings a second
      // apart end it, and the client goes on with another server.
      pingInterval: NATS_PING_MS,
      maxPingOut: 2,
      // A connection to a server out of reach is given up after 2 s, not the default 20 s:
      // reconnecting tries the servers in turn, the one that was cut off among them.
      timeout: 2_000,
      waitOnFirstConnect: true,
    });
    if (closed) {
      await nc.close();
      return undefined;
    }
    const c = contextOf(nc, await jetstreamManager(nc));
    for (const s of starters) stops.push(s(nc));
    log.info({ server: nc.getServer() }, "connected to NATS");
    up(c);
    (async () => {
      for await (const s of nc.status()) {
        if (s.type === "disconnect") {
          if (ctx !== undefined) log.warn({ server: s.server }, "NATS disconnected");
          ctx = undefined;
          downWatch.down();
        } else if (s.type === "reconnect") {
          log.info({ server: s.server }, "NATS reconnected");
          up(c);
          for (const l of reconnectListeners) l();
        }
      }
    })().catch(() => {});
    return nc;
  })();
  connection.catch((e: unknown) => log.error({ err: e }, "NATS connection failed"));
  return {
    ready: (stop) => {
      if (ctx !== undefined) return Promise.resolve(ctx);
      if (closed) return Promise.reject(new Error("the NATS link is closed"));
      if (stop?.aborted === true) return Promise.reject(new Error("stopped"));
      return new Promise((resolve, reject) => {
        const waiter = {
          resolve: (c: NatsContext) => {
            stop?.removeEventListener("abort", abandon);
            resolve(c);
          },
          reject: (e: Error) => {
            stop?.removeEventListener("abort", abandon);
            reject(e);
          },
        };
        const abandon = () => {
          waiters = waiters.filter((w) => w !== waiter);
          reject(new Error("stopped"));
        };
        stop?.addEventListener("abort", abandon, { once: true });
        waiters.push(waiter);
      });
    },
    current: () => ctx,
    unreachable: () => downWatch.reason(),
    onReconnect(listener) {
      reconnectListeners.push(listener);
    },
    whenConnected(start) {
      starters.add(start);
      if (ctx !== undefined) stops.push(start(ctx.nc));
      return () => starters.delete(start);
    },
    async close() {
      closed = true;
      ctx = undefined;
      downWatch.stop();
      // Whoever waits for a connection stops waiting (their loops end on `closed`).
      for (const w of waiters) w.reject(new Error("the NATS link is closed"));
      waiters = [];
      for (const stop of stops) stop();
      const nc = await Promise.race([connection, Promise.resolve(undefined)]);
      if (nc !== undefined) await nc.drain().catch(() => nc.close());
      else connection.then((c) => c?.close()).catch(() => {});
    },
  };
}
