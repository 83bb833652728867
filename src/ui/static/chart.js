// Two small time charts drawn as SVG elements (no library): the last minute on the x axis,
// milliseconds on the y axis. Presentation attributes only, no inline styles (the page's
// Content-Security-Policy allows none).

const NS = "http://www.w3.org/2000/svg";
const W = 480;
const H = 200;
const LEFT = 44;
const RIGHT = 10;
const TOP = 10;
const BOTTOM = 26;
/** Dots drawn at most (the newest); the summary still counts every sample. */
const MAX_DRAWN = 3_000;

function el(name, attrs, text) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** A round axis top above `max`: 1, 2 or 5 × a power of ten. */
export function niceMax(max) {
  if (!(max > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 5, 10]) if (m * p >= max) return m * p;
  return 10 * p;
}

export function percentile(values, p) {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * Draws `samples` ([time ms, value ms]) of the window ending at `now` into `svg`.
 * kind "dots": one dot per sample; "line": a line through them. `reference`: a dashed line.
 */
export function drawTimeChart(svg, { samples, now, windowMs, kind, reference }) {
  const shown = samples.filter(([t]) => t > now - windowMs && t <= now + 1_000);
  const drawn = shown.slice(-MAX_DRAWN);
  const values = shown.map((s) => s[1]);
  const top = niceMax(Math.max(percentile(values, 99) ?? 0, reference ?? 0) * 1.15);
  const plotW = W - LEFT - RIGHT;
  const plotH = H - TOP - BOTTOM;
  const x = (t) => LEFT + ((t - (now - windowMs)) / windowMs) * plotW;
  const y = (v) => TOP + plotH - (Math.min(v, top) / top) * plotH;
  const parts = [];
  for (let i = 0; i <= 4; i++) {
    const v = (top * i) / 4;
    parts.push(
      el("line", { x1: LEFT, x2: W - RIGHT, y1: y(v), y2: y(v), class: "grid" }),
      el("text", { x: LEFT - 6, y: y(v) + 4, "text-anchor": "end", class: "tick" }, fmt(v)),
    );
  }
  for (let s = 0; s <= windowMs / 1000; s += 15) {
    const t = now - s * 1000;
    parts.push(
      el(
        "text",
        { x: x(t), y: H - 8, "text-anchor": "middle", class: "tick" },
        s === 0 ? "now" : `-${s}s`,
      ),
    );
  }
  if (reference !== undefined)
    parts.push(
      el("line", {
        x1: LEFT,
        x2: W - RIGHT,
        y1: y(reference),
        y2: y(reference),
        class: "reference",
      }),
    );
  if (kind === "dots") {
    for (const [t, v] of drawn)
      parts.push(el("circle", { cx: x(t).toFixed(1), cy: y(v).toFixed(1), r: 3, class: "dot" }));
  } else if (drawn.length > 0) {
    const d = drawn.map(([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    parts.push(el("polyline", { points: d, class: "line" }));
  }
  if (shown.length === 0)
    parts.push(
      el(
        "text",
        { x: LEFT + plotW / 2, y: TOP + plotH / 2, "text-anchor": "middle", class: "none" },
        "no samples in the last minute",
      ),
    );
  svg.replaceChildren(...parts);
  svg.dataset.points = String(shown.length);
  return shown;
}

function fmt(v) {
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(0) : v.toFixed(1);
}

/** "p50 87 ms · p99 199 ms · max 201 ms (42 samples)" */
export function summary(values) {
  if (values.length === 0) return "";
  const ms = (v) => `${v < 10 ? v.toFixed(1) : v.toFixed(0)} ms`;
  return `p50 ${ms(percentile(values, 50))} · p99 ${ms(percentile(values, 99))} · max ${ms(Math.max(...values))} (${values.length} ${values.length === 1 ? "sample" : "samples"})`;
}
