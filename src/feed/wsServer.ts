// WebSocket endpoints on the node's HTTP server: JSON-RPC with eth_subscribe (geth
// rpc/websocket.go behaviour) on `/` and routed paths, and the raw flashblocks stream in Base's
// wire format on `/flashblocks`.

import type { IncomingMessage, Server } from "node:http";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { brotliCompressSync, constants } from "node:zlib";
import type { RawData, WebSocket } from "ws";
import { WebSocketServer } from "ws";
import type { DispatcherOptions } from "../rpc/dispatch.ts";
import { createDispatcher } from "../rpc/dispatch.ts";
import type { MethodRegistry, RequestContext } from "../rpc/method.ts";
import { SplicedBody } from "../rpc/splicedBody.ts";
import { type Clock, systemClock } from "../util/clock.ts";
import type { SendLimits } from "./outbox.ts";
import { Outbox, RPC_SEND_LIMITS, STREAM_SEND_LIMITS } from "./outbox.ts";
import {
  refusedSubscriptionMethods,
  SubscriptionSet,
  subscriptionMethods,
} from "./subscriptions.ts";
import type { ChainFeed, FlashblockEvent, Unsubscribe } from "./types.ts";

/** geth wsDefaultReadLimit (rpc/websocket.go): larger messages close the connection (1009). */
export const WS_READ_LIMIT = 32 * 1024 * 1024;
/** Stream clients have nothing to say; anything larger than this closes them. */
export const STREAM_READ_LIMIT = 64 * 1024;
/** Ping period; a client that has not answered the previous ping by the next one is cut. */
export const WS_PING_INTERVAL_MS = 5_000;
/**
 * Requests of one connection in progress at once; past it, reading pauses (frames already read
 * in the same chunk still arrive, so this bounds work per connection, not exactly).
 */
export const WS_MAX_INFLIGHT = 64;
export const FLASHBLOCKS_PATH = "/flashblocks";
/** How long close() waits for close handshakes before cutting sockets. */
const CLOSE_GRACE_MS = 1_000;

const INTERNAL_ERROR =
  '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}';
const PUBLIC: RequestContext = { tier: "public" };

/** The context for a JSON-RPC path; undefined rejects with 404, a number with that status. */
export type WsRoute = (path: string, req: IncomingMessage) => RequestContext | number | undefined;

export type WebSocketOptions = {
  /**
   * What subscriptions and `/flashblocks` are fed from; absent (an archive that does not move):
   * JSON-RPC only, eth_subscribe refused with `noFeed`, `/flashblocks` not found.
   */
  readonly feed: ChainFeed | undefined;
  readonly noFeed?: string;
  readonly methods: MethodRegistry;
  /** Default: `/` → public tier, anything else 404. */
  readonly route?: WsRoute;
  readonly flashblocksPath?: string;
  readonly maxMessageBytes?: number;
  readonly pingIntervalMs?: number;
  /** The heartbeat's clock (tests step a fake one). */
  readonly clock?: Clock;
  readonly maxInflight?: number;
  readonly rpcLimits?: SendLimits;
  readonly streamLimits?: SendLimits;
  /** Dispatcher settings for WebSocket calls (default: no request timeout, as geth). */
  readonly dispatcher?: Omit<DispatcherOptions, "subscriptions">;
};

export type WebSocketHandle = {
  /** Open connections (both kinds). */
  readonly connections: number;
  /** Stops accepting upgrades and closes every socket. */
  close(): Promise<void>;
};

type Connection = {
  readonly ws: WebSocket;
  readonly outbox: Outbox;
  alive: boolean;
  paused: boolean;
};

export function defaultWsRoute(path: string): RequestContext | undefined {
  return path === "/" ? PUBLIC : undefined;
}

function pathOf(url: string): string {
  const q = url.indexOf("?");
  return q < 0 ? url : url.slice(0, q);
}

function rejectUpgrade(socket: Duplex, status: number): void {
  const text = STATUS_CODES[status] ?? "Error";
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  socket.destroy();
}

function textOf(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString("utf8");
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data).toString("utf8");
}

export function attachWebSocket(server: Server, opts: WebSocketOptions): WebSocketHandle {
  const route = opts.route ?? defaultWsRoute;
  const streamPath = opts.flashblocksPath ?? FLASHBLOCKS_PATH;
  const maxInflight = opts.maxInflight ?? WS_MAX_INFLIGHT;
  const rpcLimits = opts.rpcLimits ?? RPC_SEND_LIMITS;
  const streamLimits = opts.streamLimits ?? STREAM_SEND_LIMITS;
  const dispatcherOptions: DispatcherOptions = {
    requestTimeoutMs: 0,
    ...opts.dispatcher,
    subscriptions: true,
  };
  // Compression off, as geth's upgrader: flashblocks are small and sent to many clients.
  const rpcWss = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    perMessageDeflate: false,
    maxPayload: opts.maxMessageBytes ?? WS_READ_LIMIT,
  });
  const streamWss = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    perMessageDeflate: false,
    maxPayload: STREAM_READ_LIMIT,
  });
  const connections = new Set<Connection>();
  const streamClients = new Set<Connection>();
  let stopStream: Unsubscribe | undefined;
  let closed = false;

  function track(ws: WebSocket, limits: SendLimits): Connection {
    const conn: Connection = {
      ws,
      outbox: new Outbox(ws, limits),
      alive: true,
      paused: false,
    };
    connections.add(conn);
    ws.on("pong", () => {
      conn.alive = true;
    });
    // Errors (oversized or malformed frames) are followed by 'close'; nothing else to do.
    ws.on("error", () => {});
    ws.on("close", () => connections.delete(conn));
    return conn;
  }

  /** Stream clients that asked for brotli binary frames (`/flashblocks?compression=brotli`). */
  const brotliClients = new WeakSet<Connection>();
  /** Each event compressed once, however many clients take brotli. */
  const compressed = new WeakMap<FlashblockEvent, Buffer>();
  function frameFor(conn: Connection, ev: FlashblockEvent): string | Buffer {
    if (!brotliClients.has(conn)) return ev.json;
    let frame = compressed.get(ev);
    if (frame === undefined) {
      frame = brotliFrame(ev.json);
      compressed.set(ev, frame);
    }
    return frame;
  }

  // One feed listener serves every stream client; it exists only while there are clients.
  function broadcast(ev: FlashblockEvent): void {
    for (const conn of streamClients) conn.outbox.send(frameFor(conn, ev), brotliClients.has(conn));
  }

  function onStream(feed: ChainFeed, ws: WebSocket, brotli: boolean): void {
    const conn = track(ws, streamLimits);
    if (brotli) brotliClients.add(conn);
    // The block being built so far first: a client joining mid-block can follow at once.
    for (const ev of feed.currentFlashblocks?.() ?? [])
      conn.outbox.send(frameFor(conn, ev), brotli);
    streamClients.add(conn);
    if (stopStream === undefined) stopStream = feed.onFlashblock(broadcast);
    ws.on("message", () => {
      conn.alive = true;
    });
    ws.on("close", () => {
      streamClients.delete(conn);
      if (streamClients.size === 0 && stopStream !== undefined) {
        stopStream();
        stopStream = undefined;
      }
    });
  }

  function onRpc(ws: WebSocket, base: RequestContext): void {
    const conn = track(ws, rpcLimits);
    const feed = opts.feed;
    const subs =
      feed === undefined
        ? undefined
        : new SubscriptionSet({
            feed,
            send: (text) => conn.outbox.send(text),
            onOverflow: () => conn.outbox.drop(),
          });
    const dispatcher = createDispatcher(
      {
        ...opts.methods,
        ...(subs === undefined
          ? refusedSubscriptionMethods(opts.noFeed ?? "nothing is notified here")
          : subscriptionMethods(subs)),
      },
      dispatcherOptions,
    );
    let inflight = 0;
    ws.on("message", (data) => {
      conn.alive = true;
      // A fresh context per message: subscriptions made by it activate after its response.
      const ctx: RequestContext = { ...base };
      inflight++;
      if (inflight >= maxInflight && !conn.paused) {
        conn.paused = true;
        ws.pause();
      }
      void Promise.resolve()
        .then(() => dispatcher.handle(textOf(data), ctx))
        .catch(() => INTERNAL_ERROR)
        .then((out) => {
          // A refusal has no HTTP status to carry on a socket: its JSON-RPC error is the answer.
          if (out instanceof SplicedBody) conn.outbox.send(out.toBuffer());
          else if (out !== undefined) conn.outbox.send(typeof out === "object" ? out.body : out);
          subs?.activate(ctx);
          inflight--;
          if (conn.paused && inflight < maxInflight) {
            conn.paused = false;
            ws.resume();
          }
        });
    });
    ws.on("close", () => subs?.closeAll());
  }

  function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on("error", () => {});
    if (closed) {
      rejectUpgrade(socket, 503);
      return;
    }
    const path = pathOf(req.url ?? "/");
    const feed = opts.feed;
    if (feed !== undefined && path === streamPath) {
      // Base's websocket proxy sends brotli binary frames when compression is on; a client asks.
      const brotli = /[?&]compression=brotli(&|$)/.test(req.url ?? "");
      streamWss.handleUpgrade(req, socket, head, (ws) => onStream(feed, ws, brotli));
      return;
    }
    let ctx: RequestContext | number | undefined;
    try {
      ctx = route(path, req);
    } catch {
      ctx = 500;
    }
    if (ctx === undefined || typeof ctx === "number") {
      rejectUpgrade(socket, ctx ?? 404);
      return;
    }
    rpcWss.handleUpgrade(req, socket, head, (ws) => onRpc(ws, ctx));
  }

  // Idle deadline: each tick cuts clients that did not pong since the last one, then pings.
  const clock = opts.clock ?? systemClock;
  const pingIntervalMs = opts.pingIntervalMs ?? WS_PING_INTERVAL_MS;
  const heartbeat = () => {
    stopHeartbeat = clock.schedule(heartbeat, pingIntervalMs);
    for (const conn of connections) {
      // A paused reader cannot see pongs; it is alive by definition (we stopped reading).
      if (conn.paused) continue;
      if (!conn.alive) {
        conn.outbox.drop();
        continue;
      }
      conn.alive = false;
      conn.ws.ping();
    }
  };
  let stopHeartbeat = clock.schedule(heartbeat, pingIntervalMs);

  server.on("upgrade", onUpgrade);

  return {
    get connections() {
      return connections.size;
    },
    async close() {
      if (closed) return;
      closed = true;
      server.off("upgrade", onUpgrade);
      stopHeartbeat();
      const pending = [...connections].map(
        (conn) =>
          new Promise<void>((resolve) => {
            if (conn.ws.readyState === conn.ws.CLOSED) {
              resolve();
              return;
            }
            conn.ws.once("close", () => resolve());
            // 1001 "going away"; sockets that do not complete the handshake are cut.
            conn.ws.close(1001, "server shutting down");
            setTimeout(() => conn.ws.terminate(), CLOSE_GRACE_MS).unref();
          }),
      );
      await Promise.all(pending);
      stopStream?.();
      stopStream = undefined;
      rpcWss.close();
      streamWss.close();
    },
  };
}

/** A flashblock as Base's websocket proxy compresses it (brotli, quality 5, window 22). */
function brotliFrame(json: string): Buffer {
  return brotliCompressSync(json, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_LGWIN]: 22 },
  });
}
