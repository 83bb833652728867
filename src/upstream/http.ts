// One HTTP POST to the upstream and what its answer is: JSON, or a failure saying whether another
// try may help (rate limit, timeout, gateway error) and what to tell the user if none does.
import { VERSION } from "../version.ts";
import { isRetryableStatus, parseRetryAfter } from "./classify.ts";
import { htmlTitle, quoteBody } from "./errors.ts";

/** Why an HTTP exchange failed. `rate`/`transient` are retried; `fatal` is not. */
export type FailureKind = "rate" | "transient" | "fatal";

/** Which error class a failure becomes once no retry is left. */
export type FailureClass = "unavailable" | "rateLimited" | "protocol";

export type HttpFailure = {
  readonly ok: false;
  readonly kind: FailureKind;
  readonly errorClass: FailureClass;
  /** What happened, for the one-line message: "timed out after 45 s", "answered HTTP 502 …". */
  readonly reason: string;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
};

export type HttpAnswer = {
  readonly ok: true;
  readonly status: number;
  readonly body: unknown;
  readonly retryAfterMs: number | undefined;
};

const USER_AGENT = `flashnode/${VERSION}`;

/** POSTs `body` (JSON text) with a time limit; never throws. */
export async function postJson(
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string,
  timeoutMs: number,
  abort: AbortSignal,
): Promise<HttpAnswer | HttpFailure> {
  const timer = AbortSignal.timeout(Math.max(1, timeoutMs));
  const signal = AbortSignal.any([timer, abort]);
  let status: number;
  let text: string;
  let retryAfterMs: number | undefined;
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "user-agent": USER_AGENT,
        ...headers,
      },
      body,
      signal,
    });
    status = res.status;
    retryAfterMs = parseRetryAfter(res.headers.get("retry-after"));
    text = await res.text();
  } catch (e) {
    if (abort.aborted) return failure("fatal", "unavailable", "the upstream client was closed");
    if (timer.aborted)
      return failure("transient", "unavailable", `did not answer within ${seconds(timeoutMs)}`);
    return failure("transient", "unavailable", networkReason(e));
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return nonJson(status, text, retryAfterMs);
  }
  return { ok: true, status, body: parsed, retryAfterMs };
}

function nonJson(status: number, text: string, retryAfterMs: number | undefined): HttpFailure {
  const title = htmlTitle(text);
  const what =
    title !== undefined
      ? `an HTML page (${JSON.stringify(title)})`
      : /^\s*</.test(text)
        ? "an HTML page"
        : quoteBody(text);
  const reason = `answered HTTP ${status} with ${what}, not JSON-RPC`;
  if (status === 429) return failure("rate", "rateLimited", reason, status, retryAfterMs);
  if (status === 503) return failure("rate", "unavailable", reason, status, retryAfterMs);
  if (isRetryableStatus(status))
    return failure("transient", "protocol", reason, status, retryAfterMs);
  return failure("fatal", "protocol", reason, status, retryAfterMs);
}

function failure(
  kind: FailureKind,
  errorClass: FailureClass,
  reason: string,
  status?: number,
  retryAfterMs?: number,
): HttpFailure {
  return { ok: false, kind, errorClass, reason, status, retryAfterMs };
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** fetch's "fetch failed" hides the reason in its cause chain (ECONNREFUSED, ENOTFOUND…). */
function networkReason(e: unknown): string {
  let cause: unknown = e;
  for (let i = 0; i < 4 && cause instanceof Error; i++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string") {
      if (code === "ECONNREFUSED") return "refused the connection (ECONNREFUSED)";
      if (code === "ENOTFOUND") return "could not be resolved (ENOTFOUND)";
      if (code === "ECONNRESET") return "reset the connection (ECONNRESET)";
      return `could not be reached (${code})`;
    }
    cause = cause.cause;
  }
  return `could not be reached (${e instanceof Error ? e.message : String(e)})`;
}
