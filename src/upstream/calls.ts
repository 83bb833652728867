// The client's public shapes (options per call, hooks, statistics, batch outcomes) and the
// reading of a JSON-RPC error out of whatever shape a provider sends it in.
import type { RpcErrorShape } from "./classify.ts";
import { quoteBody, type UpstreamError, type UpstreamErrorCode } from "./errors.ts";
import { isObject } from "./json.ts";

export type UpstreamHooks = {
  /**
   * A call ended (an identical call it shared the answer of excepted): its method, how long it
   * took from the first send to the end (retries and their waits included), how many times it was
   * sent, and its error's code if it failed.
   */
  readonly onCall?: (info: {
    readonly method: string;
    readonly seconds: number;
    readonly attempts: number;
    readonly error: UpstreamErrorCode | undefined;
  }) => void;
  /** An HTTP request left, carrying `calls` JSON-RPC calls (a batch when `batch`). */
  readonly onRequest?: (info: { readonly calls: number; readonly batch: boolean }) => void;
  /** A call will be sent again after `delayMs` because of `reason`. */
  readonly onRetry?: (info: {
    readonly method: string;
    readonly attempt: number;
    readonly delayMs: number;
    readonly reason: string;
  }) => void;
};

/** Several hooks as one: each is told, in order. */
export function combineHooks(...all: readonly UpstreamHooks[]): UpstreamHooks {
  return {
    onCall: (info) => {
      for (const h of all) h.onCall?.(info);
    },
    onRequest: (info) => {
      for (const h of all) h.onRequest?.(info);
    },
    onRetry: (info) => {
      for (const h of all) h.onRetry?.(info);
    },
  };
}

/**
 * For a start, which waits on its upstream: says once, at the first retry, that the upstream does
 * not answer yet (the start goes on retrying, --fork-retries times, before it gives up).
 */
export function startRetryNotice(
  logger: { warn(fields: Record<string, unknown>, msg: string): void } | undefined,
  host: string,
): UpstreamHooks {
  let told = false;
  return {
    onRetry: ({ reason, delayMs }) => {
      if (told) return;
      told = true;
      logger?.warn(
        { upstream: host, reason, retryInMs: delayMs },
        "the upstream does not answer yet: retrying (--fork-retries, --fork-retry-backoff)",
      );
    },
  };
}

export type UpstreamStats = {
  /** HTTP requests sent. */
  readonly requests: number;
  /** Of which JSON-RPC batches (more than one call). */
  readonly batches: number;
  /** JSON-RPC calls sent, retries included. */
  readonly calls: number;
  readonly retries: number;
  /** Calls answered by an identical call already in flight. */
  readonly deduplicated: number;
  /** Calls that failed, by error code. */
  readonly errors: Readonly<Record<UpstreamErrorCode, number>>;
  /** Whether the upstream takes batches: not yet known, yes, or no (calls go one by one). */
  readonly batching: "unknown" | "yes" | "no";
};

/**
 * Whether the upstream answers: it stops when a call fails for want of an answer (unreachable,
 * timed out, rate-limited past every retry), and it answers again at its next JSON answer.
 */
export type UpstreamReachability =
  | { readonly reachable: true }
  | {
      readonly reachable: false;
      /** Date.now() of the first failure since it last answered. */
      readonly since: number;
      /** The last failure's one-line message. */
      readonly reason: string;
    };

export type CallOptions = {
  /** This call's whole budget (retries and waits included); the client's deadlineMs if unset. */
  readonly deadlineMs?: number;
};

export type RpcCall = { readonly method: string; readonly params: readonly unknown[] };

export type CallOutcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: UpstreamError };

/** A JSON-RPC error in an answer: `{error: {code, message}}`, or a provider's bare `{code, message}`. */
export function errorShape(item: unknown): RpcErrorShape | undefined {
  if (!isObject(item)) return undefined;
  // Some gateways send the error as a bare string: {"error": "rate limited"}.
  if (typeof item.error === "string") return { code: 0, message: item.error };
  const e = isObject(item.error) ? item.error : "result" in item ? undefined : item;
  if (e === undefined || typeof e.code !== "number") return undefined;
  const message = typeof e.message === "string" ? e.message : "";
  return e.data === undefined ? { code: e.code, message } : { code: e.code, message, data: e.data };
}

export function describeError(e: RpcErrorShape): string {
  return `answered error ${e.code}: ${quoteBody(e.message)}`;
}
