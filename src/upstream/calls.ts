// The client's public shapes (options per call, hooks, statistics, batch outcomes) and the
// reading of a JSON-RPC error out of whatever shape a provider sends it in.
import type { RpcErrorShape } from "./classify.ts";
import { quoteBody, type UpstreamError, type UpstreamErrorCode } from "./errors.ts";
import { isObject } from "./json.ts";

export type UpstreamHooks = {
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
