// What `npm run bench:exec` prints: per path, a row per workload with each side's median over
// the rounds (µs of CPU per transaction, Mgas per CPU-second, Mgas per wall second), and the
// ratios after/before and flashnode/anvil of Mgas per CPU-second (above 1: after is faster).
import type { Sample } from "./execPaths.ts";

export type Column = "after" | "before" | "anvil";
const COLUMNS: readonly Column[] = ["after", "before", "anvil"];

/** Samples of one path: by workload, by column, one per round. */
export class PathResults {
  readonly rows = new Map<string, Map<Column, Sample[]>>();

  constructor(
    readonly title: string,
    /** What "CPU" is on this path (the measured thread, the process). */
    readonly cpuNote: string,
  ) {}

  add(workload: string, column: Column, sample: Sample): void {
    let row = this.rows.get(workload);
    if (row === undefined) {
      row = new Map();
      this.rows.set(workload, row);
    }
    const list = row.get(column) ?? [];
    list.push(sample);
    row.set(column, list);
  }
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Nearest-rank percentile. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!;
}

export const fmt = (n: number) =>
  Number.isNaN(n) ? "–" : n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);

type Figures = { usPerTx: number; mgasPerCpu: number; mgasPerWall: number; gasPerTx: number };

function figures(samples: readonly Sample[] | undefined): Figures | undefined {
  if (samples === undefined || samples.length === 0) return undefined;
  return {
    usPerTx: median(samples.map((s) => (s.cpu / s.txs) * 1e6)),
    mgasPerCpu: median(samples.map((s) => s.gas / s.cpu / 1e6)),
    mgasPerWall: median(samples.map((s) => s.gas / s.wall / 1e6)),
    gasPerTx: median(samples.map((s) => s.gas / s.txs)),
  };
}

const pad = (s: string, n: number) => s.padStart(n);

export function printPath(r: PathResults): void {
  const present = COLUMNS.filter((c) => [...r.rows.values()].some((row) => row.has(c)));
  console.log(`\n${r.title}`);
  console.log(`  CPU: ${r.cpuNote}; medians of the rounds`);
  const head = [
    "workload".padEnd(9),
    pad("txs", 5),
    pad("gas/tx", 8),
    ...present.map((c) => pad(`${c}: µs/tx  Mgas/CPU-s  Mgas/s`, 36)),
    ...(present.includes("before") ? [pad("after/before", 13)] : []),
    ...(present.includes("anvil") ? [pad("after/anvil", 12)] : []),
  ];
  console.log(`  ${head.join(" ")}`);
  for (const [workload, row] of r.rows) {
    const f = new Map(present.map((c) => [c, figures(row.get(c))]));
    const any = [...f.values()].find((x) => x !== undefined);
    const cells = [
      workload.padEnd(9),
      pad(String(row.values().next().value?.[0]?.txs ?? ""), 5),
      pad(any === undefined ? "–" : any.gasPerTx.toFixed(0), 8),
      ...present.map((c) => {
        const x = f.get(c);
        return pad(
          x === undefined
            ? "–"
            : `${pad(fmt(x.usPerTx), 8)}  ${pad(fmt(x.mgasPerCpu), 10)}  ${pad(fmt(x.mgasPerWall), 6)}`,
          36,
        );
      }),
    ];
    const after = f.get("after");
    if (present.includes("before")) {
      const b = f.get("before");
      cells.push(pad(after && b ? `×${(after.mgasPerCpu / b.mgasPerCpu).toFixed(2)}` : "–", 13));
    }
    if (present.includes("anvil")) {
      const a = f.get("anvil");
      cells.push(pad(after && a ? `×${(after.mgasPerCpu / a.mgasPerCpu).toFixed(3)}` : "–", 12));
    }
    console.log(`  ${cells.join(" ")}`);
  }
  const waits = [...r.rows.values()].flatMap((row) =>
    [...row.values()].flat().map((s) => s.runQueueMs / s.wall),
  );
  // The import's processes are gone before they could be read: no figure, rather than a 0.
  if (waits.some((w) => w > 0))
    console.log(
      `  the measured processes waited for a CPU ${fmt(median(waits))} ms/s (median; max ${fmt(Math.max(...waits))})`,
    );
}

/** A latency line: p50, p99, mean and total of each column's values (ms). */
export function printLatencies(
  title: string,
  byColumn: ReadonlyMap<Column, readonly number[]>,
): void {
  console.log(`\n${title}`);
  const p50 = new Map<Column, number>();
  for (const [c, values] of byColumn) {
    const total = values.reduce((a, b) => a + b, 0);
    p50.set(c, percentile(values, 0.5));
    console.log(
      `  ${c.padEnd(7)} n ${values.length}: p50 ${fmt(percentile(values, 0.5))} ms, p99 ${fmt(percentile(values, 0.99))} ms, mean ${fmt(total / Math.max(1, values.length))} ms, total ${fmt(total)} ms`,
    );
  }
  const a = p50.get("after");
  const b = p50.get("before");
  const v = p50.get("anvil");
  const ratios = [
    a !== undefined && b !== undefined ? `after/before ×${(a / b).toFixed(2)}` : undefined,
    a !== undefined && v !== undefined ? `after/anvil ×${(a / v).toFixed(2)}` : undefined,
  ].filter((x) => x !== undefined);
  if (ratios.length > 0)
    console.log(`  p50 ratios (time: below 1 is faster): ${ratios.join(", ")}`);
}
