// Metrics computed from plain figures at every scrape (the call and upstream series). They carry
// prom-client's "sum" aggregator: several RPC processes' figures add up.
import type { Registry } from "prom-client";

export type Value = { labels: Record<string, string | number>; value: number; metricName?: string };

/** A registrar of metrics whose values are computed from `series()`, read at every scrape. */
export function scrapedMetric<S>(registry: Registry, series: () => S | Promise<S>) {
  return (name: string, help: string, type: string, values: (s: S) => Value[]): void => {
    // The registry's metric interface: a name and a get() read at scrape time.
    registry.registerMetric({
      name,
      help,
      type,
      get: async () => ({ name, help, type, values: values(await series()), aggregator: "sum" }),
    } as unknown as Parameters<Registry["registerMetric"]>[0]);
  };
}

/**
 * One series of histogram `name`: its cumulative `_bucket`s at `bounds` (`h.buckets[i]` counts
 * the observations ≤ bounds[i], not cumulative), the +Inf bucket, `_sum` and `_count`.
 */
export function histogramValues(
  name: string,
  bounds: readonly number[],
  labels: Record<string, string | number>,
  h: { readonly buckets: readonly number[]; readonly count: number; readonly sum: number },
): Value[] {
  let cumulative = 0;
  const out: Value[] = bounds.map((le, i) => {
    cumulative += h.buckets[i]!;
    return { metricName: `${name}_bucket`, labels: { le, ...labels }, value: cumulative };
  });
  out.push({ metricName: `${name}_bucket`, labels: { le: "+Inf", ...labels }, value: h.count });
  out.push({ metricName: `${name}_sum`, labels, value: h.sum });
  out.push({ metricName: `${name}_count`, labels, value: h.count });
  return out;
}
