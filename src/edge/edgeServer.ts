// The one HTTP server of a node: routes public and dedicated JSON-RPC, applies the method
// policy and rate limits before any call runs, and serves /metrics, /healthz, /readyz and the
// live page under /ui.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Server as NetServer, Socket } from "node:net";
import type { Logger } from "../log/logger.ts";
import type { Metrics } from "../metrics/metrics.ts";
import type { Dispatcher } from "../rpc/dispatch.ts";
import { sendAnswer } from "../rpc/httpAnswer.ts";
import {
  type CallSummary,
  callBlocks,
  type MethodRegistry,
  type Refusal,
  type RequestContext,
} from "../rpc/method.ts";
import type { RefusedResponse } from "../rpc/responseTails.ts";
import { createRpcHandler } from "../rpc/server.ts";
import { createUiHandler, isUiPath } from "../ui/uiFiles.ts";
import { isLoopback } from "../util/loopback.ts";
import { createFastHttpServer } from "./fastHttp.ts";
import { allowed, type MethodPolicy, NOT_WHITELISTED, type Tier } from "./policy.ts";
import { type RateLimit, RateLimiter, type SharedLimit } from "./rateLimit.ts";

export type EdgeLimits = {
  readonly bodyLimit: number;
  readonly headerTimeoutMs: number;
  readonly requestReadTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly maxConnections: number;
  readonly corsOrigins: readonly string[] | undefined;
};

export type EdgeOptions = {
  readonly dispatcher: Dispatcher;
  /** The registry the dispatcher serves: the policy reads each call's blocks through it. */
  readonly methods: MethodRegistry;
  readonly policy: MethodPolicy;
  /** Dedicated endpoint keys, each optionally rate-limited. */
  readonly apiKeys: ReadonlyMap<string, RateLimit | undefined>;
  /** Per client address on public endpoints; undefined = unlimited. */
  readonly publicRateLimit: RateLimit | undefined;
  /** Clients on this machine (isLoopback) are not held to publicRateLimit. Default: they are. */
  readonly exemptLoopback?: boolean;
  readonly limits: EdgeLimits;
  readonly metrics: Metrics | null;
  readonly health: () => Health;
  /** Refusals and dropped connections are logged at debug (never with the API key). */
  readonly logger?: Logger;
  /** Set when several processes serve the node: rate limits are shared between them. */
  readonly sharedLimits?: SharedLimit;
};

export type Health = {
  readonly live: boolean;
  readonly ready: boolean;
  readonly reasons: readonly string[];
  /** A follower publishing to NATS: whether it writes the shared stream ("leader") or stands by. */
  readonly publisher?: string;
};

const UNAUTHORIZED: RefusedResponse = {
  refused: true,
  status: 401,
  headers: {},
  body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"unauthorized: unknown API key"}}',
};

/** The path of a request target: origin-form, or absolute-form (as sent to proxies). */
function pathOf(url: string): string {
  if (!url.startsWith("/")) {
    try {
      return new URL(url).pathname;
    } catch {
      return url;
    }
  }
  const q = url.indexOf("?");
  return q < 0 ? url : url.slice(0, q);
}

/** The key of /rpc/<key>; undefined for a malformed %-escape (it cannot name a key). */
function apiKeyOf(path: string): string | undefined {
  try {
    return decodeURIComponent(path.slice(5));
  } catch {
    return undefined;
  }
}

function ignore(): void {}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.on("error", ignore); // a vanished client is not our error (the RPC handler adds its own)
  res.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

export type Edge = {
  /** The listening server: plain JSON-RPC POSTs on the fast path, the rest through httpServer. */
  readonly server: NetServer;
  /** node:http: every request the fast path hands over, and WebSocket upgrades. */
  readonly httpServer: Server;
  /** Stops accepting and closes every connection (idle at once, busy after its answer). */
  close(): Promise<void>;
  /** The request context for a path, or an HTTP status to refuse it with (also for WebSocket). */
  route(path: string, req: IncomingMessage): RequestContext | number | undefined;
  /** The rate limiters by name ("public", "key:<apiKey>"), for sharing between processes. */
  readonly limiters: ReadonlyMap<string, RateLimiter>;
};

export function createEdge(opts: EdgeOptions): Edge {
  const rpc = createRpcHandler({
    dispatcher: opts.dispatcher,
    bodyLimit: opts.limits.bodyLimit,
    ...(opts.limits.corsOrigins === undefined ? {} : { corsOrigins: opts.limits.corsOrigins }),
  });
  const limiter = (limit: RateLimit) => new RateLimiter(limit, undefined, opts.sharedLimits);
  const publicLimiter =
    opts.publicRateLimit === undefined ? undefined : limiter(opts.publicRateLimit);
  const keyLimiters = new Map<string, RateLimiter>();
  for (const [key, limit] of opts.apiKeys)
    if (limit !== undefined) keyLimiters.set(key, limiter(limit));
  // Named for the processes that share them: "public", "key:<apiKey>".
  const limiters = new Map<string, RateLimiter>();
  if (publicLimiter !== undefined) limiters.set("public", publicLimiter);
  for (const [key, l] of keyLimiters) limiters.set(`key:${key}`, l);
  const metrics = opts.metrics;
  const ui = createUiHandler();

  const log = opts.logger?.child({ module: "edge" });
  const blocksOf = callBlocks(opts.methods);

  function admit(tier: Tier, limiter: RateLimiter | undefined, bucket: string, client: string) {
    return (calls: readonly CallSummary[]): Refusal | undefined => {
      for (const call of calls) {
        if (!allowed(opts.policy, tier, call, blocksOf)) {
          metrics?.forbidden(tier, call.method);
          log?.debug({ tier, client, method: call.method, calls: calls.length }, "forbidden (403)");
          return NOT_WHITELISTED;
        }
      }
      const limited = limiter?.take(bucket, Math.max(1, calls.length));
      if (limited !== undefined) {
        metrics?.rateLimited(tier);
        log?.debug({ tier, client, calls: calls.length }, "rate limited (429)");
      }
      return limited;
    };
  }

  // A keep-alive connection asks for the same path again and again: its context (tier, client,
  // admission) is built once per connection and path, not per request.
  const routed = new WeakMap<Socket, { readonly path: string; readonly ctx: RequestContext }>();

  function route(path: string, req: IncomingMessage): RequestContext | number | undefined {
    const hit = routed.get(req.socket);
    if (hit !== undefined && hit.path === path) return hit.ctx;
    const ctx = routeOnce(path, req.socket.remoteAddress ?? "unknown");
    if (typeof ctx === "object") routed.set(req.socket, { path, ctx });
    return ctx;
  }

  /** `quiet`: a refusal is not counted or logged here (the fast path hands it to node:http). */
  function routeOnce(
    path: string,
    client: string,
    quiet = false,
  ): RequestContext | number | undefined {
    if (path === "/") {
      const limiter =
        opts.exemptLoopback === true && isLoopback(client) ? undefined : publicLimiter;
      return { tier: "public", client, admit: admit("public", limiter, client, client) };
    }
    if (path.startsWith("/rpc/")) {
      const key = apiKeyOf(path);
      if (key === undefined || !opts.apiKeys.has(key)) {
        if (quiet) return 401;
        metrics?.unauthorized();
        log?.debug({ client }, "unknown API key (401)");
        return 401;
      }
      return {
        tier: "dedicated",
        client,
        apiKey: key,
        admit: admit("dedicated", keyLimiters.get(key), key, client),
      };
    }
    return undefined;
  }

  async function serveMetrics(res: ServerResponse): Promise<void> {
    if (metrics === null) return send(res, 404, "text/plain", "metrics disabled\n");
    send(res, 200, metrics.registry.contentType, await metrics.text());
  }

  // Timeouts are enforced on this tick (Node's default of 30 s would let slow clients linger).
  const server = createServer({ connectionsCheckingInterval: 1000 }, (req, res) => {
    const path = pathOf(req.url ?? "/");
    if (req.method === "GET" && path === "/metrics") return void serveMetrics(res);
    if (isUiPath(path)) return ui(req, res, path);
    if (req.method === "GET" && path === "/healthz") {
      const h = opts.health();
      return send(
        res,
        h.live ? 200 : 503,
        "application/json",
        JSON.stringify({ status: h.live ? "ok" : "down" }),
      );
    }
    if (req.method === "GET" && path === "/readyz") {
      const h = opts.health();
      return send(
        res,
        h.ready ? 200 : 503,
        "application/json",
        JSON.stringify({
          ready: h.ready,
          reasons: h.reasons,
          ...(h.publisher === undefined ? {} : { publisher: h.publisher }),
        }),
      );
    }
    const ctx = route(path, req);
    if (ctx === 401) {
      res.on("error", ignore);
      return sendAnswer(res, UNAUTHORIZED, false);
    }
    if (ctx === undefined || typeof ctx === "number") {
      res.on("error", ignore);
      res.writeHead(404, { "content-length": 0 });
      return void res.end();
    }
    rpc(req, res, ctx);
  });
  server.headersTimeout = opts.limits.headerTimeoutMs;
  server.requestTimeout = opts.limits.requestReadTimeoutMs;
  server.keepAliveTimeout = opts.limits.idleTimeoutMs;
  const fast = createFastHttpServer({
    fallback: server,
    route: (path, client) => routeOnce(path, client, true),
    dispatcher: opts.dispatcher,
    bodyLimit: opts.limits.bodyLimit,
    headerTimeoutMs: opts.limits.headerTimeoutMs,
    requestReadTimeoutMs: opts.limits.requestReadTimeoutMs,
    idleTimeoutMs: opts.limits.idleTimeoutMs,
    maxConnections: opts.limits.maxConnections,
    corsOrigins:
      opts.limits.corsOrigins === undefined
        ? undefined
        : new Set(opts.limits.corsOrigins.map((o) => o.toLowerCase())),
  });
  fast.server.on("drop", (d) =>
    log?.debug({ client: d?.remoteAddress }, "connection refused: at --max-connections"),
  );
  return { server: fast.server, httpServer: server, close: fast.close, route, limiters };
}
