// The serving side of every reader: dispatcher, edge (tiers, policy, limits, metrics, health)
// and WebSocket, built from the resolved options.
import type { Server } from "node:net";
import { createEdge, type Edge, type Health } from "../edge/edgeServer.ts";
import type { MethodPolicy } from "../edge/policy.ts";
import type { RateLimit } from "../edge/rateLimit.ts";
import type { ChainFeed } from "../feed/types.ts";
import { attachWebSocket } from "../feed/wsServer.ts";
import type { Logger } from "../log/logger.ts";
import { createMetrics, type Metrics, type MetricsSources } from "../metrics/metrics.ts";
import { createDispatcher, type DispatcherOptions } from "../rpc/dispatch.ts";
import type { MethodRegistry } from "../rpc/method.ts";
import { listen } from "../rpc/server.ts";
import { routeFilterCalls } from "./filterRouting.ts";
import type { ReaderLink } from "./readerLink.ts";

export type FrontendOptions = {
  readonly host: string;
  readonly port: number;
  readonly apiKeys: ReadonlyMap<string, RateLimit | undefined>;
  /** True when no key was configured and one was generated for this run. */
  readonly generatedKey: boolean;
  readonly publicRateLimit: RateLimit | undefined;
  /** Clients on this machine are not held to publicRateLimit (dev, unless asked). */
  readonly exemptLoopback: boolean;
  readonly policy: MethodPolicy;
  readonly corsOrigins: readonly string[] | undefined;
  readonly bodyLimit: number;
  readonly batchLimit: number;
  readonly responseLimit: number;
  readonly requestTimeoutMs: number;
  readonly headerTimeoutMs: number;
  readonly readTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly maxConnections: number;
};

export type Frontend = {
  readonly url: string;
  readonly dedicatedUrl: string;
  readonly wsUrl: string;
  readonly server: Server;
  readonly metrics: Metrics;
  close(): Promise<void>;
};

export async function startFrontend(args: {
  readonly options: FrontendOptions;
  readonly methods: MethodRegistry;
  readonly feed: ChainFeed | undefined;
  readonly metricsSources: MetricsSources;
  readonly health: () => Health;
  readonly logger: Logger;
  /** A reader process of a node served by several (`--rpc-workers`): its link to the primary. */
  readonly link?: ReaderLink;
}): Promise<Frontend> {
  const o = args.options;
  const link = args.link;
  const readers = link?.readers ?? 1;
  const metrics = createMetrics(
    args.metricsSources,
    new Set(Object.keys(args.methods)),
    link === undefined ? undefined : () => link.metricsText(),
  );
  link?.serveRegistry(metrics.registry);
  const methods =
    link === undefined ? args.methods : routeFilterCalls(args.methods, link, link.slot);
  const rpcLog = args.logger.child({ module: "rpc" });
  // Per-call debug lines cost a closure and a log write each: only when asked for.
  const observe: NonNullable<DispatcherOptions["observe"]> = rpcLog.isLevelEnabled("debug")
    ? (method, ctx, ms, code) => {
        metrics.observeCall(method, ctx, ms, code);
        rpcLog.debug({ method, tier: ctx.tier, client: ctx.client, ms, code }, "call");
      }
    : metrics.observeCall;
  const onUnexpectedError = (method: string, err: unknown) =>
    rpcLog.error({ method, err }, "method failed unexpectedly");
  const dispatcherOptions = {
    batchRequestLimit: o.batchLimit,
    batchResponseMaxSize: o.responseLimit,
    requestTimeoutMs: o.requestTimeoutMs,
    observe,
    onUnexpectedError,
  };
  const edge: Edge = createEdge({
    dispatcher: createDispatcher(methods, dispatcherOptions),
    methods,
    policy: o.policy,
    apiKeys: o.apiKeys,
    publicRateLimit: o.publicRateLimit,
    exemptLoopback: o.exemptLoopback,
    limits: {
      bodyLimit: o.bodyLimit,
      headerTimeoutMs: o.headerTimeoutMs,
      requestReadTimeoutMs: o.readTimeoutMs,
      idleTimeoutMs: o.idleTimeoutMs,
      // The cap is the node's: each of the readers takes its share.
      maxConnections: Math.max(1, Math.floor(o.maxConnections / readers)),
      corsOrigins: o.corsOrigins,
    },
    metrics,
    health: args.health,
    logger: args.logger,
    ...(readers > 1 ? { sharedLimits: { share: 1 / readers } } : {}),
  });
  link?.shareLimiters(edge.limiters);
  // Every role has its WebSocket; an archive that does not move (serve) has nothing to notify.
  const ws = attachWebSocket(edge.httpServer, {
    feed: args.feed,
    noFeed: "this node serves an archive, which does not change (flashnode serve)",
    methods,
    route: edge.route,
    dispatcher: {
      batchRequestLimit: o.batchLimit,
      batchResponseMaxSize: o.responseLimit,
      observe,
      onUnexpectedError,
    },
  });
  let url: string;
  try {
    ({ url } = await listen(edge.server, o.host, o.port));
  } catch (e) {
    await ws.close();
    throw e;
  }
  const key = [...o.apiKeys.keys()][0]!;
  link?.listening(url, `${url}rpc/${key}`);
  // Of a node's several readers, the primary says it once (before its banner).
  args.logger[readers > 1 ? "debug" : "info"](
    { url, tiers: { public: url, dedicated: `${url}rpc/<key>` } },
    "serving JSON-RPC",
  );
  return {
    url,
    dedicatedUrl: `${url}rpc/${key}`,
    wsUrl: url.replace(/^http/, "ws"),
    server: edge.server,
    metrics,
    async close() {
      await ws.close();
      await edge.close();
    },
  };
}
