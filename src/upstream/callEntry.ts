// One call as the client keeps it until it ends (its budget, its sends, its timers), the
// client's counters, and the error a call ends with when no retry is left.
import type { UpstreamStats } from "./calls.ts";
import {
  type UpstreamError,
  type UpstreamErrorCode,
  UpstreamProtocolError,
  UpstreamRateLimitedError,
  UpstreamUnavailableError,
} from "./errors.ts";
import type { FailureClass } from "./http.ts";

export type Entry = {
  readonly method: string;
  readonly params: readonly unknown[];
  readonly budgetMs: number;
  readonly deadline: number;
  /** performance.now() when the call was made (its latency's start). */
  readonly startedAt: number;
  /** Sends so far. */
  attempt: number;
  /** Sent in a request of its own (its batch was refused because of some call in it). */
  alone: boolean;
  done: boolean;
  /** The last failure, for the error if the budget runs out while waiting. */
  last: { readonly errorClass: FailureClass; readonly reason: string } | undefined;
  timer: NodeJS.Timeout | undefined;
  /** The wait before its next send, if it is waiting to be retried. */
  retryTimer: NodeJS.Timeout | undefined;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: UpstreamError) => void;
};

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export type Counters = Mutable<Omit<UpstreamStats, "errors">> & {
  errors: Record<UpstreamErrorCode, number>;
};

export function newCounters(): Counters {
  return {
    requests: 0,
    batches: 0,
    calls: 0,
    retries: 0,
    deduplicated: 0,
    batching: "unknown",
    errors: {
      UPSTREAM_UNAVAILABLE: 0,
      UPSTREAM_RATE_LIMITED: 0,
      UPSTREAM_PROTOCOL: 0,
      UPSTREAM_NOT_ARCHIVE: 0,
      UPSTREAM_CALL: 0,
    },
  };
}

/** The error a call ends with, from its last failure; `suffix` says why no retry is left. */
export function finalError(host: string, entry: Entry, suffix: string): UpstreamError {
  const last = entry.last;
  const reason = last?.reason ?? `gave no answer to ${entry.method}`;
  const at = `the upstream at ${host}`;
  switch (last?.errorClass) {
    case "rateLimited":
      return new UpstreamRateLimitedError(
        host,
        `${at} is rate-limiting flashnode: it ${reason}${suffix}; see --fork-retries and --fork-retry-backoff`,
      );
    case "protocol":
      return new UpstreamProtocolError(host, `${at} ${reason}${suffix}`);
    default:
      return new UpstreamUnavailableError(host, `${at} ${reason}${suffix}`);
  }
}
