// Reading a node's /metrics (Prometheus text) in a bench: scrapes taken before and after a
// window, differenced, so what the node counted before the window (start-up, catch-up) is left
// out.
export type Scrape = ReadonlyMap<string, number>;

/** Every sample of the exposition, keyed by its name and labels as written (`name{a="b"}`). */
export async function scrape(metricsUrl: string): Promise<Scrape> {
  const text = await (await fetch(metricsUrl)).text();
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const cut = line.lastIndexOf(" ");
    out.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return out;
}

/** How much a sample grew between two scrapes (0 if absent). */
export function grew(before: Scrape, after: Scrape, key: string): number {
  return (after.get(key) ?? 0) - (before.get(key) ?? 0);
}

export type HistogramDelta = {
  readonly count: number;
  readonly sumSeconds: number;
  /** Cumulative counts in the window by upper bound (seconds; Infinity last). */
  readonly buckets: readonly (readonly [number, number])[];
};

/** A histogram's observations between two scrapes. */
export function histogramDelta(before: Scrape, after: Scrape, name: string): HistogramDelta {
  const buckets: [number, number][] = [];
  const prefix = `${name}_bucket{le="`;
  for (const key of after.keys()) {
    if (!key.startsWith(prefix)) continue;
    const le = key.slice(prefix.length, key.indexOf('"', prefix.length));
    buckets.push([le === "+Inf" ? Number.POSITIVE_INFINITY : Number(le), grew(before, after, key)]);
  }
  buckets.sort((a, b) => a[0] - b[0]);
  return {
    count: grew(before, after, `${name}_count`),
    sumSeconds: grew(before, after, `${name}_sum`),
    buckets,
  };
}

/** The bucket holding quantile `q`, as "≤ N ms" (the histogram bounds every figure). */
export function bucketQuantile(h: HistogramDelta, q: number): string {
  if (h.count === 0) return "none";
  for (const [le, n] of h.buckets)
    if (n >= q * h.count)
      return le === Number.POSITIVE_INFINITY
        ? `> ${(h.buckets.at(-2)?.[0] ?? 0) * 1000} ms`
        : `≤ ${+(le * 1000).toFixed(2)} ms`;
  return "?";
}

/** Share of the window's observations at or under `seconds` (a bucket bound). */
export function shareWithin(h: HistogramDelta, seconds: number): number {
  const b = h.buckets.find(([le]) => le === seconds);
  return h.count === 0 || b === undefined ? 0 : b[1] / h.count;
}
