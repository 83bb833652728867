// What a process's (or thread's) upstream clients did, by method, in plain numbers: calls, their
// errors by code, retries and latency. The clients report through their hooks (callStats.hooks);
// a snapshot is plain data that may cross to another thread or process, where snapshots add up
// (mergeUpstreamSeries) and the metrics layer turns them into Prometheus series.
import type { UpstreamHooks } from "./calls.ts";

/** Upper bounds (seconds) of the latency histogram: a cached-nothing read to a slow provider. */
export const UPSTREAM_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
] as const;

/** One method's figures; `buckets[i]` counts calls ≤ UPSTREAM_BUCKETS[i] (not cumulative). */
export type UpstreamSeries = {
  readonly method: string;
  calls: number;
  retries: number;
  /** Seconds spent in calls (retries and their waits included). */
  sum: number;
  readonly buckets: number[];
  /** Error code (UPSTREAM_UNAVAILABLE…) → calls that ended with it. */
  readonly errors: Record<string, number>;
};

function emptySeries(method: string): UpstreamSeries {
  return {
    method,
    calls: 0,
    retries: 0,
    sum: 0,
    buckets: UPSTREAM_BUCKETS.map(() => 0),
    errors: {},
  };
}

export class UpstreamCallStats {
  private readonly byMethod = new Map<string, UpstreamSeries>();
  /** What the clients report to (pass as their `hooks`). */
  readonly hooks: UpstreamHooks = {
    onCall: ({ method, seconds, error }) => {
      const s = this.series(method);
      s.calls++;
      s.sum += seconds;
      let i = 0;
      while (i < UPSTREAM_BUCKETS.length && seconds > UPSTREAM_BUCKETS[i]!) i++;
      if (i < UPSTREAM_BUCKETS.length) s.buckets[i]!++;
      if (error !== undefined) s.errors[error] = (s.errors[error] ?? 0) + 1;
    },
    onRetry: ({ method }) => {
      this.series(method).retries++;
    },
  };

  private series(method: string): UpstreamSeries {
    let s = this.byMethod.get(method);
    if (s === undefined) {
      s = emptySeries(method);
      this.byMethod.set(method, s);
    }
    return s;
  }

  /** A copy of every method's figures. */
  snapshot(): UpstreamSeries[] {
    return [...this.byMethod.values()].map((s) => ({
      ...s,
      buckets: [...s.buckets],
      errors: { ...s.errors },
    }));
  }
}

/** Several snapshots added up, method by method. */
export function mergeUpstreamSeries(
  lists: ReadonlyArray<readonly UpstreamSeries[] | undefined>,
): UpstreamSeries[] {
  const out = new Map<string, UpstreamSeries>();
  for (const list of lists)
    for (const s of list ?? []) {
      let m = out.get(s.method);
      if (m === undefined) {
        m = emptySeries(s.method);
        out.set(s.method, m);
      }
      m.calls += s.calls;
      m.retries += s.retries;
      m.sum += s.sum;
      s.buckets.forEach((n, i) => {
        m.buckets[i] = (m.buckets[i] ?? 0) + n;
      });
      for (const [code, n] of Object.entries(s.errors)) m.errors[code] = (m.errors[code] ?? 0) + n;
    }
  return [...out.values()];
}
