// The charts each bench command writes next to its tables (docs/charts/, shown in
// docs/benchmarks.md), built from the figures it measured: pure functions from figures to SVG text,
// so they are tested on synthetic figures without running a benchmark.
import { type BarGroup, barChartSvg, type LineSeries, lineChartSvg } from "./svgChart.ts";

/** Latency percentiles of one server under one workload (wrk --latency), ms. */
export type Percentiles = {
  readonly p50: number;
  readonly p75?: number | undefined;
  readonly p90?: number | undefined;
  readonly p99: number;
};

export type ServerFigures = {
  /** "flashnode", "anvil --silent", "bare node:http". */
  readonly server: string;
  readonly callsPerSecond: number;
  readonly latency: Percentiles;
};

/** One workload of `npm run bench`: each server that ran it (the bare ceiling runs only one). */
export type WorkloadFigures = {
  readonly workload: string;
  readonly servers: readonly ServerFigures[];
};

/** `npm run bench`: calls per second by workload, one bar per server. */
export function throughputChart(
  title: string,
  figures: readonly WorkloadFigures[],
  note: string,
): string {
  return barChartSvg({
    title,
    unit: "calls/s",
    log: true,
    groups: figures.map((w) => ({
      label: w.workload,
      bars: w.servers.map((s) => ({ series: s.server, value: s.callsPerSecond })),
    })),
    note,
  });
}

const PERCENTILES = ["p50", "p75", "p90", "p99"] as const;

/** `npm run bench`: the latency distribution (p50, p75, p90, p99) of each server, per workload. */
export function latencyChart(
  title: string,
  figures: readonly WorkloadFigures[],
  note: string,
): string {
  const groups: BarGroup[] = [];
  for (const w of figures)
    for (const s of w.servers)
      groups.push({
        label: `${w.workload}: ${s.server}`,
        bars: PERCENTILES.flatMap((p) => {
          const v = s.latency[p];
          return v === undefined ? [] : [{ series: p, value: v, label: `${v.toFixed(2)} ms` }];
        }),
      });
  return barChartSvg({ title, unit: "ms", log: true, groups, note });
}

/** `npm run bench:flashblocks`: the interval between flashblocks at each offered rate. */
export function cadenceChart(
  steps: ReadonlyArray<{ readonly rate: number; readonly points: readonly [number, number][] }>,
): string {
  return lineChartSvg({
    title: "npm run bench:flashblocks: flashblock interval under load (target 200 ms)",
    xLabel: "seconds since the rate step started",
    yLabel: "interval between flashblocks, ms",
    series: steps.map((s) => ({ name: `${s.rate} tx/s`, points: s.points })),
    note: "each line: one offered rate of signed transfers; intervals as seen on the /flashblocks stream",
  });
}

/** The value at each percentile 1…99 and the maximum, as [percentile, value] points. */
export function percentileCurve(samples: readonly number[]): [number, number][] {
  if (samples.length === 0) return [];
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
  const points: [number, number][] = [];
  for (let p = 1; p < 100; p++) points.push([p, at(p)]);
  points.push([100, sorted[sorted.length - 1]!]);
  return points;
}

/**
 * `npm run bench:flashblocks`: the distribution of send → pre-confirmed latency, as the client
 * saw it (send → receipt visible) and as the node measured it (intake → flashblock published).
 */
export function preconfirmLatencyChart(
  series: ReadonlyArray<{ readonly name: string; readonly samples: readonly number[] }>,
  note: string,
): string {
  const lines: LineSeries[] = series.map((s) => ({
    name: s.name,
    points: percentileCurve(s.samples),
  }));
  return lineChartSvg({
    title: "npm run bench:flashblocks: send → pre-confirmed latency distribution",
    xLabel: "percentile (100 = max)",
    yLabel: "ms",
    series: lines,
    note,
  });
}

/** Read latency at one archive head (bench:scale), µs. */
export type ReadLatency = { readonly head: number; readonly p50: number; readonly p99: number };

/** `npm run bench:scale`: eth_getStorageAt's archive read at the smaller head and the larger one. */
export function scaleReadsChart(
  at: { readonly latest: ReadLatency; readonly near: ReadLatency },
  now: { readonly latest: ReadLatency; readonly near: ReadLatency },
): string {
  const bars = (l: ReadLatency) => [
    { series: "p50", value: l.p50, label: `${l.p50.toFixed(2)} µs` },
    { series: "p99", value: l.p99, label: `${l.p99.toFixed(1)} µs` },
  ];
  const size = (h: number) => `${h.toLocaleString("en-US")} blocks`;
  return barChartSvg({
    title: "npm run bench:scale: eth_getStorageAt's archive read by archive size",
    unit: "µs per read (in-process, random slots)",
    log: true,
    groups: [
      { label: `latest, ${size(at.latest.head)}`, bars: bars(at.latest) },
      { label: `latest, ${size(now.latest.head)}`, bars: bars(now.latest) },
      { label: `near head, ${size(at.near.head)}`, bars: bars(at.near) },
      { label: `near head, ${size(now.near.head)}`, bars: bars(now.near) },
    ],
    note: "near head: a random block among the last ones; the figures of the smaller head were measured when the archive had that head",
  });
}
