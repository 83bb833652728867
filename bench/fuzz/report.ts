// Human-readable output: one-line case descriptions (for failures, crashes and --replay) and the
// end-of-run summary with its PASS/FAIL verdict.
import type { FuzzCase } from "./cases/types.ts";
import type { ProblemKind } from "./checks.ts";
import type { FuzzOptions } from "./options.ts";
import type { Probe } from "./probes.ts";
import type { Stats } from "./stats.ts";

export function preview(b: Buffer | string, n = 240): string {
  const s = typeof b === "string" ? b : b.toString("latin1");
  const cut = s.length > n ? `${s.slice(0, n)}… (${s.length} bytes)` : s;
  return JSON.stringify(cut);
}

export function describe(c: FuzzCase): string {
  const head = `#${c.index} ${c.kind}/${c.variant}`;
  if (c.transport === "http") {
    const h = Object.entries(c.headers)
      .map(([k, v]) => `${k}: ${v}`)
      .join("; ");
    return `${head} ${c.method} ${preview(c.path, 80)}${h === "" ? "" : ` [${h}]`}${c.chunked ? " chunked" : ""} body ${preview(c.body)}`;
  }
  if (c.transport === "raw") {
    const all = Buffer.concat(c.steps.map((s) => s.data));
    return `${head} raw ${c.steps.length} writes, then ${c.after}: ${preview(all)}`;
  }
  return `${head} ws ${c.path} ${c.frames.length} frames: ${c.frames.map((f) => preview(f.data, 80)).join(", ")}`;
}

const table = (rows: string[][]): string => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
        .join("  "),
    )
    .join("\n");
};

const fmtStatuses = (m: Map<number, number>) =>
  [...m.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([s, n]) => `${s}×${n}`)
    .join(" ");

/** The node died (or, with --url, stopped answering), with the cases in flight at that moment. */
export type Crash = { what: string; inflight: FuzzCase[] };
/** What replaying the suspects on a fresh node found; `culprit` kills a node on its own. */
export type Confirmation = { text: string; culprit?: number };

export type SummaryInput = {
  readonly opts: FuzzOptions;
  readonly stats: Stats;
  readonly skipped: number;
  readonly durationMs: number;
  readonly rss: { readonly start: number | undefined; readonly max: number };
  readonly rssEnd: number | undefined;
  readonly crash: Crash | undefined;
  /** The harness started the node itself (no --url). */
  readonly ownNode: boolean;
  readonly crashLog: readonly string[];
  readonly confirmation: Confirmation | undefined;
  readonly probes: readonly Probe[];
  readonly targetHref: string;
};

/** The summary text and whether the run failed. */
export function formatSummary(s: SummaryInput): { text: string; failed: boolean } {
  const { opts, stats, crash, probes } = s;
  const duration = s.durationMs;
  const sent = stats.sent;
  const total = (k: ProblemKind) => stats.problemCounts.get(k) ?? 0;
  const lines: string[] = [];
  lines.push("", "=== fuzz summary ===");
  if (opts.exclude.length > 0)
    lines.push(`excluded: ${opts.exclude.join(", ")} (${s.skipped} cases not sent)`);
  lines.push(
    `seed ${opts.seed}    duration ${(duration / 1000).toFixed(1)} s    requests ${sent} (${Math.round(sent / (duration / 1000))}/s)    concurrency ${opts.concurrency}`,
  );
  if (s.rss.start !== undefined)
    lines.push(
      `node RSS: ${s.rss.start} MiB at start, ${s.rss.max} MiB max, ${s.rssEnd ?? "?"} MiB at end`,
    );
  lines.push("", "by case kind:");
  const rows = [["kind", "sent", "conn", "failed", "statuses"]];
  for (const [kind, k] of stats.byKind)
    if (k.sent > 0)
      rows.push([
        kind,
        String(k.sent),
        String(k.conn),
        String(k.failed),
        fmtStatuses(k.statuses) || "-",
      ]);
  lines.push(table(rows).replace(/^/gm, "  "));
  lines.push("", `HTTP statuses: ${fmtStatuses(stats.statusCounts)}`);
  lines.push(`JSON-RPC error codes: ${fmtStatuses(stats.errorCodes)}`);
  lines.push(`5xx answers: ${total("5xx")}`);
  lines.push(`malformed JSON-RPC answers: ${total("malformed")}`);
  lines.push(`unexpected statuses: ${total("status")}`);
  lines.push(`unanswered (hang/timeout/cut before the answer): ${total("unanswered")}`);
  lines.push(`unexpected connection errors: ${total("connection")}`);
  lines.push(`expected connection outcomes (dropped/stalled/refused sockets): ${stats.connEvents}`);
  lines.push(
    `crashes: ${crash === undefined ? 0 : 1}${crash === undefined ? "" : ` (${crash.what})`}`,
  );
  if (stats.suspicious.size > 0) {
    lines.push("", "warnings: internal-looking error messages (-32603 or JS exception text):");
    for (const [m, { n, index }] of [...stats.suspicious.entries()]
      .sort((a, b) => b[1].n - a[1].n)
      .slice(0, 15))
      lines.push(`  ${n}× ${m}  (first: case #${index})`);
  }
  const failures = stats.failures;
  if (failures.length > 0) {
    lines.push("", `failures (first ${Math.min(failures.length, 25)} of ${stats.problemTotal()}):`);
    const seen = new Set<string>();
    let shown = 0;
    for (const f of failures) {
      const key = `${f.c.kind}/${f.c.variant}/${f.problem.what}/${f.problem.detail}`;
      if (seen.has(key) || shown >= 25) continue;
      seen.add(key);
      shown++;
      lines.push(`  [${f.problem.what}] ${f.problem.detail}`);
      lines.push(`    ${describe(f.c)}`);
      if (f.problem.response !== undefined)
        lines.push(`    answer: ${preview(f.problem.response)}`);
    }
  }
  if (crash !== undefined) {
    lines.push(
      "",
      `CRASH: ${crash.what}; cases in flight: ${crash.inflight.map((c) => c.index).join(", ") || "unknown"}`,
    );
    for (const c of crash.inflight) lines.push(`  ${describe(c)}`);
    if (s.ownNode) lines.push("node output (last lines):", ...s.crashLog.map((l) => `  ${l}`));
    if (s.confirmation !== undefined)
      lines.push(`confirmation on a fresh node: ${s.confirmation.text}`);
  }
  lines.push("", "probes:");
  if (probes.length === 0) lines.push("  skipped (node crashed)");
  for (const p of probes) lines.push(`  ${p.ok ? "ok  " : "FAIL"} ${p.name}: ${p.detail}`);
  const failed =
    total("5xx") +
      total("malformed") +
      total("status") +
      total("unanswered") +
      total("connection") >
      0 ||
    crash !== undefined ||
    probes.some((p) => !p.ok);
  const indices = [...new Set(failures.map((f) => f.c.index))].slice(0, 10);
  if (s.confirmation?.culprit !== undefined) indices.unshift(s.confirmation.culprit);
  else if (crash !== undefined) for (const c of crash.inflight) indices.push(c.index);
  if (indices.length > 0) {
    const ded = opts.dedicatedUrl === undefined ? "" : ` --dedicated-url ${opts.dedicatedUrl}`;
    const url = s.ownNode ? "" : ` --url ${s.targetHref}${ded}`;
    lines.push(
      "",
      `reproduce: npm run fuzz -- --seed ${opts.seed}${url} --replay ${indices.join(",")}`,
    );
  }
  lines.push("", failed ? "RESULT: FAIL" : "RESULT: PASS");
  return { text: lines.join("\n"), failed };
}
