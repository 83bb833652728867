// Small SVG charts written by the bench commands next to their tables (docs/charts/): grouped bars
// on a log or linear axis, and lines. Plain SVG text, no dependency; readable in any browser and on
// GitHub.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export type Bar = { readonly series: string; readonly value: number; readonly label?: string };
export type BarGroup = { readonly label: string; readonly bars: readonly Bar[] };
export type BarChart = {
  readonly title: string;
  readonly unit: string;
  readonly groups: readonly BarGroup[];
  /** Log axis: for values that span orders of magnitude (req/s of receipts against batches). */
  readonly log?: boolean;
  readonly note?: string;
};
export type LineSeries = { readonly name: string; readonly points: readonly [number, number][] };
export type LineChart = {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly LineSeries[];
  readonly note?: string;
};

const COLORS = ["#1f77b4", "#ff7f0e", "#7f7f7f", "#2ca02c", "#d62728", "#9467bd"];
const FONT = 'font-family="sans-serif"';

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** A short figure: 3 significant digits, k/M suffixes. */
export function shortNumber(v: number): string {
  const a = Math.abs(v);
  const p = (x: number, digits: number) => String(Number(x.toPrecision(digits)));
  if (a >= 1e6) return `${p(v / 1e6, 3)}M`;
  if (a >= 1e3) return `${p(v / 1e3, 3)}k`;
  if (a >= 1) return p(v, 3);
  return p(v, 2);
}

function seriesNames(groups: readonly BarGroup[]): string[] {
  const names: string[] = [];
  for (const g of groups)
    for (const b of g.bars) if (!names.includes(b.series)) names.push(b.series);
  return names;
}

/** Roughly how wide a text is at `size` px in a sans-serif font (layout only). */
function textWidth(text: string, size = 12): number {
  return text.length * size * 0.55;
}

/** Entries side by side, each as wide as its name needs. */
function legend(names: readonly string[], x: number, y: number): string {
  let at = x;
  return names
    .map((n, i) => {
      const entry =
        `<rect x="${at}" y="${y}" width="12" height="12" fill="${COLORS[i % COLORS.length]}"/>` +
        `<text x="${at + 18}" y="${y + 11}" ${FONT} font-size="12">${esc(n)}</text>`;
      at += Math.max(130, 18 + textWidth(n) + 24);
      return entry;
    })
    .join("");
}

/** A round axis top at or above `max`: 1, 2, 2.5 or 5 × a power of ten. */
function niceTop(max: number): number {
  if (!(max > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= max) return m * p;
  return 10 * p;
}

/** Horizontal grouped bars, one group per row (workload), one bar per series. */
export function barChartSvg(c: BarChart): string {
  const names = seriesNames(c.groups);
  // Wide enough for the longest group label.
  const labelW = Math.max(250, ...c.groups.map((g) => textWidth(g.label) + 16));
  const plotW = 520;
  const barH = 14;
  const groupH = names.length * barH + 14;
  const top = 56;
  const height = top + c.groups.length * groupH + (c.note === undefined ? 30 : 48);
  const values = c.groups.flatMap((g) => g.bars.map((b) => b.value)).filter((v) => v > 0);
  const max = Math.max(...values, 1);
  const min = Math.min(...values, max);
  const lo = c.log ? 10 ** Math.floor(Math.log10(min)) : 0;
  const hi = c.log ? 10 ** Math.ceil(Math.log10(max)) : max * 1.1;
  const scale = (v: number) =>
    c.log
      ? (plotW * (Math.log10(Math.max(v, lo)) - Math.log10(lo))) / (Math.log10(hi) - Math.log10(lo))
      : (plotW * v) / hi;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${labelW + plotW + 90}" height="${height}" viewBox="0 0 ${labelW + plotW + 90} ${height}">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="10" y="20" ${FONT} font-size="14" font-weight="bold">${esc(c.title)}</text>`,
    legend(names, 10, 30),
  ];
  // Axis ticks: decades on a log axis, fifths on a linear one.
  const ticks: number[] = [];
  if (c.log) for (let t = lo; t <= hi * 1.001; t *= 10) ticks.push(t);
  else for (let i = 0; i <= 5; i++) ticks.push((hi * i) / 5);
  const axisY = top + c.groups.length * groupH;
  for (const t of ticks) {
    const x = labelW + scale(t);
    out.push(
      `<line x1="${x}" y1="${top - 4}" x2="${x}" y2="${axisY}" stroke="#ddd"/>`,
      `<text x="${x}" y="${axisY + 14}" ${FONT} font-size="12" text-anchor="middle" fill="#555">${shortNumber(t)}</text>`,
    );
  }
  out.push(
    `<text x="${labelW + plotW / 2}" y="${axisY + 28}" ${FONT} font-size="12" text-anchor="middle" fill="#555">${esc(c.unit)}${c.log ? " (log scale)" : ""}</text>`,
  );
  c.groups.forEach((g, gi) => {
    const y0 = top + gi * groupH;
    out.push(
      `<text x="${labelW - 8}" y="${y0 + (names.length * barH) / 2 + 4}" ${FONT} font-size="12" text-anchor="end">${esc(g.label)}</text>`,
    );
    for (const b of g.bars) {
      const si = names.indexOf(b.series);
      const y = y0 + si * barH;
      const w = Math.max(1, scale(b.value));
      out.push(
        `<rect x="${labelW}" y="${y}" width="${w.toFixed(1)}" height="${barH - 2}" fill="${COLORS[si % COLORS.length]}"/>`,
        `<text x="${labelW + w + 4}" y="${y + barH - 4}" ${FONT} font-size="10">${esc(b.label ?? shortNumber(b.value))}</text>`,
      );
    }
  });
  if (c.note !== undefined)
    out.push(
      `<text x="10" y="${height - 8}" ${FONT} font-size="10" fill="#555">${esc(c.note)}</text>`,
    );
  out.push("</svg>");
  return out.join("\n");
}

/** Lines over a shared linear x and y axis. */
export function lineChartSvg(c: LineChart): string {
  const left = 70;
  const plotW = 640;
  const plotH = 260;
  const top = 50;
  const width = left + plotW + 30;
  const height = top + plotH + (c.note === undefined ? 50 : 66);
  const xs = c.series.flatMap((s) => s.points.map((p) => p[0]));
  const ys = c.series.flatMap((s) => s.points.map((p) => p[1]));
  const x0 = Math.min(...xs, 0);
  const x1 = Math.max(...xs, x0 + 1);
  const y1 = niceTop(Math.max(...ys, 1) * 1.05);
  const sx = (x: number) => left + ((x - x0) / (x1 - x0)) * plotW;
  const sy = (y: number) => top + plotH - (y / y1) * plotH;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="10" y="20" ${FONT} font-size="14" font-weight="bold">${esc(c.title)}</text>`,
    legend(
      c.series.map((s) => s.name),
      10,
      28,
    ),
  ];
  for (let i = 0; i <= 5; i++) {
    const y = (y1 * i) / 5;
    const x = x0 + ((x1 - x0) * i) / 5;
    out.push(
      `<line x1="${left}" y1="${sy(y)}" x2="${left + plotW}" y2="${sy(y)}" stroke="#ddd"/>`,
      `<text x="${left - 6}" y="${sy(y) + 4}" ${FONT} font-size="12" text-anchor="end" fill="#555">${shortNumber(y)}</text>`,
      `<text x="${sx(x)}" y="${top + plotH + 16}" ${FONT} font-size="12" text-anchor="middle" fill="#555">${shortNumber(x)}</text>`,
    );
  }
  out.push(
    `<text x="${left + plotW / 2}" y="${top + plotH + 32}" ${FONT} font-size="12" text-anchor="middle" fill="#555">${esc(c.xLabel)}</text>`,
    `<text x="14" y="${top + plotH / 2}" ${FONT} font-size="12" fill="#555" transform="rotate(-90 14 ${top + plotH / 2})" text-anchor="middle">${esc(c.yLabel)}</text>`,
  );
  c.series.forEach((s, i) => {
    const d = s.points.map((p) => `${sx(p[0]).toFixed(1)},${sy(p[1]).toFixed(1)}`).join(" ");
    out.push(
      `<polyline points="${d}" fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="1.5"/>`,
    );
  });
  if (c.note !== undefined)
    out.push(
      `<text x="10" y="${height - 8}" ${FONT} font-size="10" fill="#555">${esc(c.note)}</text>`,
    );
  out.push("</svg>");
  return out.join("\n");
}

/** Writes an SVG file (creating its directory) and says where. */
export function writeChart(path: string, svg: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${svg}\n`);
  console.log(`chart: ${path}`);
}
