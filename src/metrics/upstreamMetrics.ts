// The upstream's series (a fork's or a follower's live chain): calls by method, their errors by
// code, retries and latency, from the plain figures its clients keep (upstream/callStats.ts). They
// carry prom-client's "sum" aggregator: several RPC processes' figures add up.
import type { Registry } from "prom-client";
import { UPSTREAM_BUCKETS, type UpstreamSeries } from "../upstream/callStats.ts";
import { histogramValues, scrapedMetric } from "./scrapedSeries.ts";

/** Registers the upstream series with a registry; `series` is read at every scrape. */
export function registerUpstreamMetrics(
  registry: Registry,
  series: () => readonly UpstreamSeries[] | Promise<readonly UpstreamSeries[]>,
): void {
  const metric = scrapedMetric(registry, series);
  metric(
    "flashnode_upstream_requests_total",
    "JSON-RPC calls made to the upstream chain, by method (retries of a call excluded)",
    "counter",
    (all) => all.map((s) => ({ labels: { method: s.method }, value: s.calls })),
  );
  metric(
    "flashnode_upstream_errors_total",
    "Upstream calls that failed, by method and error code (UPSTREAM_UNAVAILABLE, UPSTREAM_RATE_LIMITED, UPSTREAM_PROTOCOL, UPSTREAM_NOT_ARCHIVE, UPSTREAM_CALL)",
    "counter",
    (all) =>
      all.flatMap((s) =>
        Object.entries(s.errors).map(([code, n]) => ({
          labels: { method: s.method, code },
          value: n,
        })),
      ),
  );
  metric(
    "flashnode_upstream_retries_total",
    "Upstream calls sent again after a failure, by method",
    "counter",
    (all) => all.map((s) => ({ labels: { method: s.method }, value: s.retries })),
  );
  const name = "flashnode_upstream_request_duration_seconds";
  metric(name, "Time an upstream call took, retries and their waits included", "histogram", (all) =>
    all.flatMap((s) =>
      histogramValues(
        name,
        UPSTREAM_BUCKETS,
        { method: s.method },
        { buckets: s.buckets, sum: s.sum, count: s.calls },
      ),
    ),
  );
}
