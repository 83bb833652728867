// Per-call RPC figures counted in plain numbers on the hot path, turned into Prometheus series at
// scrape time. prom-client's own observe() hashes a label object on every call (a few µs each,
// measured in a pinned profile of eth_getStorageAt); here a call costs two Map lookups. The
// series carry prom-client's "sum" aggregator, so several RPC processes' figures add up.
import type { Registry } from "prom-client";
import { histogramValues, scrapedMetric } from "./scrapedSeries.ts";

/** Upper bounds (seconds) of the latency histogram. */
export const CALL_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5,
] as const;

/** One (method, tier) series; `buckets[i]` counts calls ≤ CALL_BUCKETS[i] (not cumulative). */
export type CallSeries = {
  readonly method: string;
  readonly tier: string;
  count: number;
  sum: number;
  readonly buckets: number[];
  /** Error code → calls answered with it. */
  readonly errors: Record<string, number>;
};

export class CallMetrics {
  private readonly byTier = new Map<string, Map<string, CallSeries>>();
  /** The series of the last call: a batch's calls are mostly of one method and tier. */
  private last: CallSeries | undefined;

  observe(method: string, tier: string, seconds: number, errorCode: number | undefined): void {
    const last = this.last;
    const s =
      last !== undefined && last.method === method && last.tier === tier
        ? last
        : this.series(method, tier);
    this.last = s;
    s.count++;
    s.sum += seconds;
    let i = 0;
    while (i < CALL_BUCKETS.length && seconds > CALL_BUCKETS[i]!) i++;
    if (i < CALL_BUCKETS.length) s.buckets[i]!++;
    if (errorCode !== undefined) {
      const code = String(errorCode);
      s.errors[code] = (s.errors[code] ?? 0) + 1;
    }
  }

  private series(method: string, tier: string): CallSeries {
    let methods = this.byTier.get(tier);
    if (methods === undefined) {
      methods = new Map();
      this.byTier.set(tier, methods);
    }
    let s = methods.get(method);
    if (s === undefined) {
      s = { method, tier, count: 0, sum: 0, buckets: CALL_BUCKETS.map(() => 0), errors: {} };
      methods.set(method, s);
    }
    return s;
  }

  /** A copy of every series (plain data: it may cross to another process). */
  snapshot(): CallSeries[] {
    const out: CallSeries[] = [];
    for (const methods of this.byTier.values())
      for (const s of methods.values())
        out.push({ ...s, buckets: [...s.buckets], errors: { ...s.errors } });
    return out;
  }
}

/** Registers the three call series with a registry; `series` is read at every scrape. */
export function registerCallMetrics(
  registry: Registry,
  series: () => CallSeries[] | Promise<CallSeries[]>,
): void {
  const metric = scrapedMetric(registry, series);
  metric("flashnode_rpc_requests_total", "JSON-RPC calls served", "counter", (all) =>
    all.map((s) => ({ labels: { method: s.method, tier: s.tier }, value: s.count })),
  );
  metric("flashnode_rpc_errors_total", "JSON-RPC calls answered with an error", "counter", (all) =>
    all.flatMap((s) =>
      Object.entries(s.errors).map(([code, n]) => ({
        labels: { method: s.method, tier: s.tier, code },
        value: n,
      })),
    ),
  );
  const name = "flashnode_rpc_request_duration_seconds";
  metric(name, "Time to answer a JSON-RPC call", "histogram", (all) =>
    all.flatMap((s) => histogramValues(name, CALL_BUCKETS, { method: s.method, tier: s.tier }, s)),
  );
}
