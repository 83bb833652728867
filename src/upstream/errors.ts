// What can go wrong talking to a live chain, as classes with codes. Each message is one line that
// names the upstream by its host (never its path or query: providers put API keys there) and
// what it answered, so it can be a JSON-RPC -32000 message or a start-up error as is.

import { FlashnodeError } from "../util/errors.ts";

export type UpstreamErrorCode =
  | "UPSTREAM_UNAVAILABLE"
  | "UPSTREAM_RATE_LIMITED"
  | "UPSTREAM_PROTOCOL"
  | "UPSTREAM_NOT_ARCHIVE"
  | "UPSTREAM_CALL";

export abstract class UpstreamError extends FlashnodeError {
  abstract override readonly code: UpstreamErrorCode;
  /** host[:port] of the upstream. */
  readonly host: string;

  constructor(host: string, message: string, options?: { cause?: unknown }) {
    super(oneLine(message), options);
    this.name = new.target.name;
    this.host = host;
  }
}

/** The upstream could not be reached, or did not answer in time, after every retry. */
export class UpstreamUnavailableError extends UpstreamError {
  readonly code = "UPSTREAM_UNAVAILABLE";
}

/** The upstream kept refusing with a rate limit (HTTP 429 or a rate-limit error body). */
export class UpstreamRateLimitedError extends UpstreamError {
  readonly code = "UPSTREAM_RATE_LIMITED";
}

/** The upstream answered something that is not JSON-RPC (an HTML page, an odd shape). */
export class UpstreamProtocolError extends UpstreamError {
  readonly code = "UPSTREAM_PROTOCOL";
}

/** The upstream has no state for the block asked (a full node past its state window). */
export class UpstreamNotArchiveError extends UpstreamError {
  readonly code = "UPSTREAM_NOT_ARCHIVE";
}

/** A JSON-RPC error the upstream returned for a well-formed request; code, message and data kept. */
export class UpstreamCallError extends UpstreamError {
  readonly code = "UPSTREAM_CALL";
  readonly rpcCode: number;
  readonly rpcMessage: string;
  readonly rpcData: unknown;

  constructor(
    host: string,
    method: string,
    rpcCode: number,
    rpcMessage: string,
    rpcData?: unknown,
  ) {
    super(host, `the upstream at ${host} answered ${method} with error ${rpcCode}: ${rpcMessage}`);
    this.rpcCode = rpcCode;
    this.rpcMessage = rpcMessage;
    this.rpcData = rpcData;
  }
}

const MAX_QUOTE = 160;

/** Collapses whitespace (an HTML page, a multi-line body) so a message stays on one line. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** A body quoted in a message: one line, at most MAX_QUOTE characters. */
export function quoteBody(text: string): string {
  const line = oneLine(text);
  if (line.length === 0) return "an empty body";
  return JSON.stringify(line.length > MAX_QUOTE ? `${line.slice(0, MAX_QUOTE)}…` : line);
}

/** What an HTML error page says about itself: its <title>, or its first heading. */
export function htmlTitle(text: string): string | undefined {
  const m = /<title[^>]*>([^<]*)<\/title>/i.exec(text) ?? /<h1[^>]*>([^<]*)<\/h1>/i.exec(text);
  const title = m?.[1] === undefined ? "" : oneLine(m[1]);
  return title === "" ? undefined : title;
}

/** The host[:port] of a URL, for messages and logs. */
export function upstreamHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "(invalid URL)";
  }
}
