// The serving side shared by `dev` and `serve`: dispatcher, edge (tiers, policy, limits,
// metrics, health) and WebSocket, built from the resolved options.
import { randomBytes } from "node:crypto";
import type { Server } from "node:net";
import { UsageError } from "../cli/args.ts";
import { type OptionValue, parseDuration } from "../cli/options.ts";
import { createEdge, type Edge, type Health } from "../edge/edgeServer.ts";
import { DEFAULT_POLICY, type MethodPolicy, parsePolicy } from "../edge/policy.ts";
import type { RateLimit } from "../edge/rateLimit.ts";
import { SUBSCRIPTION_METHODS } from "../feed/subscriptions.ts";
import type { ChainFeed } from "../feed/types.ts";
import { attachWebSocket } from "../feed/wsServer.ts";
import type { Logger } from "../log/logger.ts";
import { createMetrics, type Metrics, type MetricsSources } from "../metrics/metrics.ts";
import { createDispatcher, type DispatcherOptions } from "../rpc/dispatch.ts";
import type { MethodRegistry } from "../rpc/method.ts";
import { METHOD_NAMES } from "../rpc/methods.ts";
import { listen } from "../rpc/server.ts";
import { routeFilterCalls } from "./filterRouting.ts";
import { readerSlot } from "./readerCluster.ts";
import { type ReaderLink, readerLink } from "./readerLink.ts";

export type FrontendOptions = {
  readonly host: string;
  readonly port: number;
  readonly apiKeys: ReadonlyMap<string, RateLimit | undefined>;
  /** True when no key was configured and one was generated for this run. */
  readonly generatedKey: boolean;
  readonly publicRateLimit: RateLimit | undefined;
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

function num(values: ReadonlyMap<string, OptionValue>, name: string): number {
  return values.get(name) as number;
}

export function frontendOptions(values: ReadonlyMap<string, OptionValue>): FrontendOptions {
  const keys = (values.get("api-key") as readonly string[] | undefined) ?? [];
  const generatedKey = keys.length === 0;
  const keyRate = num(values, "key-rate-limit");
  const perKey = keyLimits(values.get("key-limits"), keys);
  const apiKeys = new Map<string, RateLimit | undefined>();
  for (const key of generatedKey ? [randomBytes(12).toString("hex")] : keys) {
    if (!/^[A-Za-z0-9_-]{8,128}$/.test(key))
      throw new UsageError(`API keys are 8-128 characters of A-Z a-z 0-9 _ -: ${key}`);
    const own = perKey[key];
    const rate = own?.rate ?? keyRate;
    apiKeys.set(key, rate > 0 ? { rate, burst: own?.burst ?? rate * 2 } : undefined);
  }
  const rate = num(values, "rate-limit");
  let policy = DEFAULT_POLICY;
  if (values.get("policy") !== undefined) {
    try {
      policy = parsePolicy(values.get("policy"), [...METHOD_NAMES, ...SUBSCRIPTION_METHODS]);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  return {
    host: values.get("host") as string,
    port: num(values, "port"),
    apiKeys,
    generatedKey,
    publicRateLimit: rate > 0 ? { rate, burst: Math.max(num(values, "rate-burst"), 1) } : undefined,
    policy,
    corsOrigins: values.get("cors") as readonly string[] | undefined,
    bodyLimit: num(values, "body-limit"),
    batchLimit: num(values, "batch-limit"),
    responseLimit: num(values, "response-limit"),
    requestTimeoutMs: parseDuration("request-timeout", values.get("request-timeout"), "s"),
    headerTimeoutMs: parseDuration("header-timeout", values.get("header-timeout"), "s"),
    readTimeoutMs: parseDuration("read-timeout", values.get("read-timeout"), "s"),
    idleTimeoutMs: parseDuration("idle-timeout", values.get("idle-timeout"), "s"),
    maxConnections: num(values, "max-connections"),
  };
}

type KeyLimit = { readonly rate?: number; readonly burst?: number };

/**
 * --key-limits checked as a whole: a limit silently ignored (a misspelt key, a bare number) would
 * leave that key unlimited.
 */
function keyLimits(raw: OptionValue, keys: readonly string[]): Record<string, KeyLimit> {
  if (raw === undefined) return {};
  const shape = '{"<key>":{"rate":N,"burst":N}}';
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new UsageError(`--key-limits must be an object ${shape}`);
  const limits = raw as Record<string, unknown>;
  for (const [key, limit] of Object.entries(limits)) {
    if (!keys.includes(key))
      throw new UsageError(`--key-limits names "${key}", which is not a key given with --api-key`);
    const fields = typeof limit === "object" && limit !== null ? Object.entries(limit) : [];
    const wholeNumber = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
    if (
      fields.length === 0 ||
      !fields.every(([name, v]) => (name === "rate" || name === "burst") && wholeNumber(v))
    )
      throw new UsageError(
        `--key-limits: the limit of "${key}" must be {"rate":N,"burst":N} (whole numbers), got ${JSON.stringify(limit)}`,
      );
  }
  return limits as Record<string, KeyLimit>;
}

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
  /** Set in a reader process of a node served by this many (`--rpc-workers`). */
  readonly readers?: number;
}): Promise<Frontend> {
  const o = args.options;
  const readers = args.readers ?? 1;
  let link: ReaderLink | undefined;
  const metrics = createMetrics(
    args.metricsSources,
    new Set(Object.keys(args.methods)),
    readers > 1 ? () => link!.metricsText() : undefined,
  );
  if (readers > 1) link = readerLink(readers, metrics.registry, readerSlot());
  const methods =
    link === undefined ? args.methods : routeFilterCalls(args.methods, link, readerSlot());
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
  const ws =
    args.feed === undefined
      ? undefined
      : attachWebSocket(edge.httpServer, {
          feed: args.feed,
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
    await ws?.close();
    link?.close();
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
      link?.close();
      await ws?.close();
      await edge.close();
    },
  };
}
