// Prometheus metrics (prom-client), one registry per node. Request metrics are recorded by the
// dispatcher's observer and the edge; chain gauges are read from their sources at scrape time.
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { FlashblockStats } from "../pending/flashblockStats.ts";
import type { RequestContext } from "../rpc/method.ts";
import type { UpstreamSeries } from "../upstream/callStats.ts";
import { CallMetrics, registerCallMetrics } from "./callMetrics.ts";
import { type FollowStreamFigures, registerFollowStreamMetrics } from "./followStreamMetrics.ts";
import { registerUpstreamMetrics } from "./upstreamMetrics.ts";

export type MetricsSources = {
  readonly head: () => number | undefined;
  readonly pendingNumber?: () => number | undefined;
  readonly flashblocks?: FlashblockStats;
  /**
   * Whether this process observes the flashblock build histogram: of a node's RPC processes, one
   * does, so the node counts each flashblock once. Default true.
   */
  readonly recordsBuilds?: boolean;
  /** A --rpc-workers reader: listens for each update's delay from the primary to this reader. */
  readonly onRelay?: (listener: (lagMs: number) => void) => void;
  readonly storeSizeBytes: () => number;
  /** Transactions pre-confirmed per second, averaged over the last seconds. */
  readonly transactionsPerSecond?: () => number;
  /** A replica: how far its archive is behind the block stream. */
  readonly replicaLag?: () => { readonly blocks: number; readonly seconds: number };
  /** A follower's events so far, by name (sequencing rules, stream reconnects). */
  readonly sourceCounters?: () => Readonly<Record<string, number>>;
  /** A follower's flashblocks stream (undefined: this node has none). */
  readonly followStream?: () => FollowStreamFigures | undefined;
  /** A follower publishing to NATS: its role (undefined: this node publishes as no follower). */
  readonly publisherRole?: () => "leader" | "standby" | undefined;
  /** A fork or a follower: what its upstream clients did, in this process and its threads. */
  readonly upstream?: () => readonly UpstreamSeries[] | Promise<readonly UpstreamSeries[]>;
};

export type Metrics = {
  readonly registry: Registry;
  /** This process's call figures. */
  readonly calls: CallMetrics;
  /** The Prometheus text of a scrape (the whole node's). */
  text(): Promise<string>;
  observeCall(method: string, ctx: RequestContext, ms: number, errorCode: number | undefined): void;
  forbidden(tier: string, method: string): void;
  rateLimited(tier: string): void;
  unauthorized(): void;
};

/** Seconds: how soon a flashblock reaches an RPC process (sub-millisecond to 100 ms). */
const DELAY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1];

/** Unknown method names are folded into one label value so clients cannot grow the registry. */
export function metricMethod(method: string, known: ReadonlySet<string>): string {
  return known.has(method) ? method : "other";
}

/**
 * `text` renders the scrape; by default this registry's. A node served by several processes
 * answers with all of theirs summed (src/node/readerHost.ts, `aggregate`); gauges every process reads alike
 * (head, pending, store size) aggregate as their max.
 */
export function createMetrics(
  sources: MetricsSources,
  knownMethods: ReadonlySet<string>,
  text?: () => Promise<string>,
): Metrics {
  const registry = new Registry();
  const calls = new CallMetrics();
  let lastMethod: string | undefined;
  let lastLabel = "other";
  registerCallMetrics(registry, () => calls.snapshot());
  if (sources.upstream !== undefined) registerUpstreamMetrics(registry, sources.upstream);
  const forbidden = new Counter({
    name: "flashnode_http_forbidden_total",
    help: "Requests refused by the method policy (HTTP 403)",
    labelNames: ["tier", "method"],
    registers: [registry],
  });
  const limited = new Counter({
    name: "flashnode_http_rate_limited_total",
    help: "Requests refused by rate limits (HTTP 429)",
    labelNames: ["tier"],
    registers: [registry],
  });
  const unauthorized = new Counter({
    name: "flashnode_http_unauthorized_total",
    help: "Requests with an unknown API key (HTTP 401)",
    registers: [registry],
  });
  const build = new Histogram({
    name: "flashnode_flashblock_build_seconds",
    help: "Slot to publication: execution still waiting at the slot plus assembling the flashblock",
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5],
    registers: [registry],
  });
  new Gauge({
    name: "flashnode_head_block_number",
    help: "Newest sealed block",
    registers: [registry],
    aggregator: "max",
    collect() {
      this.set(sources.head() ?? -1);
    },
  });
  if (sources.pendingNumber !== undefined) {
    const pendingNumber = sources.pendingNumber;
    new Gauge({
      name: "flashnode_pending_block_number",
      help: "Number of the pre-confirmed block (-1: none)",
      registers: [registry],
      aggregator: "max",
      collect() {
        this.set(pendingNumber() ?? -1);
      },
    });
  }
  if (sources.flashblocks !== undefined) {
    const stats = sources.flashblocks;
    const visible = new Histogram({
      name: "flashnode_flashblock_visible_seconds",
      help: "Publication by the sequencer to visible in this RPC process's pending view (one observation per process per flashblock)",
      buckets: DELAY_BUCKETS,
      registers: [registry],
    });
    const recordsBuilds = sources.recordsBuilds ?? true;
    stats.onRecord((buildMs, lagMs) => {
      if (recordsBuilds) build.observe(buildMs / 1000);
      visible.observe(Math.max(0, lagMs) / 1000);
    });
    new Gauge({
      name: "flashnode_flashblock_age_seconds",
      help: "Age of the newest flashblock the RPC thread applied (the pending lag)",
      registers: [registry],
      aggregator: "max",
      collect() {
        const at = stats.lastAppliedAt;
        this.set(at === undefined ? -1 : (performance.timeOrigin + performance.now() - at) / 1000);
      },
    });
    new Gauge({
      name: "flashnode_flashblocks_total",
      help: "Flashblocks applied",
      registers: [registry],
      aggregator: "max",
      collect() {
        this.set(stats.count);
      },
    });
  }
  if (sources.transactionsPerSecond !== undefined) {
    const tps = sources.transactionsPerSecond;
    new Gauge({
      name: "flashnode_transactions_per_second",
      help: "Transactions pre-confirmed per second (10 s average)",
      registers: [registry],
      aggregator: "max",
      collect() {
        this.set(tps());
      },
    });
  }
  if (sources.onRelay !== undefined) {
    const relay = new Histogram({
      name: "flashnode_reader_relay_seconds",
      help: "Primary sends an update to the readers → this reader applied it (one observation per reader per update): how far apart the readers show it",
      buckets: DELAY_BUCKETS,
      registers: [registry],
    });
    sources.onRelay((ms) => relay.observe(Math.max(0, ms) / 1000));
  }
  if (sources.replicaLag !== undefined) {
    const lag = sources.replicaLag;
    new Gauge({
      name: "flashnode_replica_lag_blocks",
      help: "Blocks in the block stream this replica has not stored yet",
      registers: [registry],
      aggregator: "max",
      collect() {
        this.set(lag().blocks);
      },
    });
    new Gauge({
      name: "flashnode_replica_lag_seconds",
      help: "Age of the block this replica stored last, while more are waiting (0 when caught up)",
      registers: [registry],
      aggregator: "max",
      collect() {
        this.set(lag().seconds);
      },
    });
  }
  if (sources.sourceCounters !== undefined) {
    const read = sources.sourceCounters;
    const seen = new Map<string, number>();
    new Counter({
      name: "flashnode_follow_events_total",
      help: "What happened following a live chain, by event: flashblocks applied, duplicates, gaps, early ones cached, canonical blocks matching or not, reorgs, depth and age limits, stream reconnects and missed deadlines",
      labelNames: ["event"],
      registers: [registry],
      // Every RPC process reports the follower's one set of figures.
      aggregator: "max",
      collect() {
        for (const [event, total] of Object.entries(read())) {
          const before = seen.get(event) ?? 0;
          if (total > before) this.inc({ event }, total - before);
          seen.set(event, total);
        }
      },
    });
  }
  if (sources.followStream !== undefined) {
    const read = sources.followStream;
    // Only a follower has a stream: other roles show no such series.
    if (read() !== undefined) registerFollowStreamMetrics(registry, read);
  }
  if (sources.publisherRole !== undefined) {
    const read = sources.publisherRole;
    new Gauge({
      name: "flashnode_follow_publisher_role",
      help: "A follower publishing to NATS (follow --nats): 1 for the role it holds, leader (it writes the shared stream) or standby",
      labelNames: ["role"],
      registers: [registry],
      aggregator: "max",
      collect() {
        const role = read();
        // Only a follower with --nats has a role: other nodes show no such series.
        if (role === undefined) return;
        this.set({ role: "leader" }, role === "leader" ? 1 : 0);
        this.set({ role: "standby" }, role === "standby" ? 1 : 0);
      },
    });
  }
  new Gauge({
    name: "flashnode_store_size_bytes",
    help: "Size of the archive on disk",
    registers: [registry],
    aggregator: "max",
    collect() {
      this.set(sources.storeSizeBytes());
    },
  });
  return {
    registry,
    calls,
    text: text ?? (() => registry.metrics()),
    observeCall(method, ctx, ms, errorCode) {
      // A batch's calls mostly name one method: its label is remembered, not looked up again.
      if (method !== lastMethod) {
        lastMethod = method;
        lastLabel = metricMethod(method, knownMethods);
      }
      calls.observe(lastLabel, ctx.tier, ms / 1000, errorCode);
    },
    forbidden: (tier, method) =>
      forbidden.inc({ tier, method: metricMethod(method, knownMethods) }),
    rateLimited: (tier) => limited.inc({ tier }),
    unauthorized: () => unauthorized.inc(),
  };
}
