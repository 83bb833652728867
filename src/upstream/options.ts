// How flashnode talks to an upstream chain: the options the CLI maps `--fork-*` onto, and their
// defaults (anvil's where anvil has the same knob).

import { FlashnodeError } from "../util/errors.ts";

export type UpstreamOptions = {
  /** The upstream's JSON-RPC endpoint (http or https). */
  readonly url: string;
  /** Extra request headers (`--fork-header "K: V"`, repeatable). */
  readonly headers: Readonly<Record<string, string>>;
  /** One HTTP request's limit (`--fork-timeout`; anvil's `--timeout`, 45 s). */
  readonly timeoutMs: number;
  /** Further attempts after a failed one (`--fork-retries`; anvil: 5). */
  readonly retries: number;
  /** The first wait before a retry, doubled each time (`--fork-retry-backoff`; anvil: 1 s). */
  readonly retryBackoffMs: number;
  /** No single wait longer than this, whatever the doubling says (Retry-After excepted). */
  readonly maxBackoffMs: number;
  /**
   * A call's whole budget, retries and waits included: past it the call fails, so nothing waits
   * on a dead upstream for timeoutMs × retries. A call may ask for less (state reads on the RPC
   * path do).
   */
  readonly deadlineMs: number;
  /** Calls per JSON-RPC batch at most (providers cap batches: Alchemy 1000, proxyd 100). */
  readonly maxBatchSize: number;
  /** HTTP requests in flight at once at most. */
  readonly maxConcurrency: number;
};

export const DEFAULT_UPSTREAM_OPTIONS = {
  headers: {},
  timeoutMs: 45_000,
  retries: 5,
  retryBackoffMs: 1_000,
  maxBackoffMs: 30_000,
  deadlineMs: 60_000,
  maxBatchSize: 100,
  maxConcurrency: 8,
} as const satisfies Omit<UpstreamOptions, "url">;

/** An upstream's options from a URL and any of the rest. */
export function upstreamOptions(
  url: string,
  overrides: Partial<Omit<UpstreamOptions, "url">> = {},
): UpstreamOptions {
  return { ...DEFAULT_UPSTREAM_OPTIONS, ...overrides, url };
}

/** A bad `--fork-url` / `--fork-header` value. */
export class UpstreamOptionError extends FlashnodeError {
  readonly code = "USAGE";
}

/** `--fork-header "K: V"` → [K, V]. */
export function parseUpstreamHeader(text: string): [string, string] {
  const colon = text.indexOf(":");
  const name = colon < 0 ? "" : text.slice(0, colon).trim();
  if (name === "" || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
    throw new UpstreamOptionError(
      `--fork-header must look like "Name: value", got ${JSON.stringify(text)}`,
    );
  return [name, text.slice(colon + 1).trim()];
}

/** Checks a `--fork-url`: an http(s) URL. */
export function checkUpstreamUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UpstreamOptionError(`--fork-url is not a URL: ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new UpstreamOptionError(
      `--fork-url must be http:// or https:// (got ${parsed.protocol}//): flashnode reads the upstream over HTTP`,
    );
}
