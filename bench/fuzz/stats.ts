// Counters over all cases run: per kind, per status, per problem, JSON-RPC error codes, and
// internal-looking error messages.
import { CASE_KINDS, type CaseKind, type FuzzCase } from "./cases/types.ts";
import type { Outcome, Problem, ProblemKind } from "./checks.ts";

const SUSPICIOUS =
  /Cannot read|is not a function|is not defined|is not iterable|Maximum call stack|Invalid array length|RangeError|TypeError|SyntaxError|Unexpected token|\bundefined\b|\[object |NaN/;

export type KindStats = {
  sent: number;
  statuses: Map<number, number>;
  conn: number;
  failed: number;
};
export type Failure = { c: FuzzCase; problem: Problem };

const inc = <K>(m: Map<K, number>, k: K, n = 1) => m.set(k, (m.get(k) ?? 0) + n);

function requestText(c: FuzzCase): string {
  const bufs =
    c.transport === "http"
      ? [c.body]
      : c.transport === "raw"
        ? c.steps.map((s) => s.data)
        : c.frames.map((f) => f.data);
  return Buffer.concat(bufs).toString("utf8");
}

/** A class: one mutable tally that the workers feed and the summary reads. */
export class Stats {
  readonly byKind = new Map<CaseKind, KindStats>(
    CASE_KINDS.map((k) => [k, { sent: 0, statuses: new Map(), conn: 0, failed: 0 }]),
  );
  readonly statusCounts = new Map<number, number>();
  readonly problemCounts = new Map<ProblemKind, number>();
  readonly errorCodes = new Map<number, number>();
  /** Internal-looking error messages → count and the first case that got it. */
  readonly suspicious = new Map<string, { n: number; index: number }>();
  readonly failures: Failure[] = [];
  sent = 0;
  connEvents = 0;

  /** All problems so far, of every kind. */
  problemTotal(): number {
    return [...this.problemCounts.values()].reduce((a, b) => a + b, 0);
  }

  record(c: FuzzCase, o: Outcome): void {
    this.sent++;
    const k = this.byKind.get(c.kind)!;
    k.sent++;
    for (const s of o.statuses) {
      inc(this.statusCounts, s);
      inc(k.statuses, s);
    }
    if (o.connEvent !== undefined) {
      this.connEvents++;
      k.conn++;
    }
    if (o.problems.length > 0) k.failed++;
    for (const p of o.problems) {
      inc(this.problemCounts, p.what);
      if (this.failures.length < 200) this.failures.push({ c, problem: p });
    }
    let sentText: string | undefined;
    for (const e of o.errors) {
      inc(this.errorCodes, e.code);
      const m = SUSPICIOUS.exec(e.message);
      // "undefined" or "NaN" quoted back from the request itself is no sign of a bug.
      sentText ??= m === null ? undefined : requestText(c);
      if (e.code === -32603 || (m !== null && !sentText!.includes(m[0]))) {
        const key = `${e.code} ${e.message.slice(0, 160)}`;
        const seen = this.suspicious.get(key);
        if (seen !== undefined) seen.n++;
        else if (this.suspicious.size < 50) this.suspicious.set(key, { n: 1, index: c.index });
      }
    }
  }
}
