// How providers say "slow down", "that range is too wide", "I have no state for that block" and
// "no batches here". Facts collected from what they send (quoted where known):
// - Alchemy: HTTP 429 / code 429 "Your app has exceeded its compute units per second capacity. If
//   you have retries enabled, you can safely ignore this message."; HTTP 403 -32600 "Monthly
//   capacity limit exceeded."; eth_getLogs "Log response size exceeded. You can make eth_getLogs
//   requests with up to a 2K block range …, this block range should work: [0x…, 0x…]".
// - Infura: HTTP 429 -32005 "project ID request rate exceeded", "daily request count exceeded,
//   request rate limited", "exceeded project rate limit" with data.rate.backoff_seconds;
//   -32005 is ALSO "query returned more than 10000 results" (eth_getLogs), so the code alone is
//   not a rate limit; -32602 "range 1000000 exceeds limit of 10000".
// - QuickNode: a bare body without jsonrpc/id {"code":-32007,"message":"100/second request limit
//   reached - reduce calls per second or upgrade your account at quicknode.com"} (foundry #4894);
//   -32012 "credits limited to 6000/sec"; HTTP 413 -32614 "eth_getLogs is limited to a 10,000 range".
// - Base public RPC (proxyd): HTTP 429 -32016 "over rate limit"; HTTP 403 -32001 "rpc method is not
//   whitelisted"; "block range too large"; "no backend is currently healthy to serve traffic".
// - Ankr: "block range is too wide"; "maximum [from, to] blocks distance: 10000".
// - Tenderly: -32005 "rate limit exceeded"; Chainstack: an HTML 429 page.
// - geth: "missing trie node …", "header not found", "historical state … is not available",
//   "required historical state unavailable"; reth: "state at block #N is pruned"; erigon:
//   "state histories haven't been fully indexed yet"; "distance to target block exceeds maximum".

/** A JSON-RPC error as found in a body (a proper error object or a provider's bare one). */
export type RpcErrorShape = {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
};

const RATE_LIMIT_WORDS = [
  "rate limit",
  "ratelimit",
  "rate-limit",
  "too many requests",
  "request limit reached",
  "compute units per second",
  "capacity limit exceeded",
  "request rate exceeded",
  "rate exceeded",
  "request count exceeded",
  "credits limited",
  "exceeded project rate",
  "throughput limit",
  "slow down",
];

/** Whether a JSON-RPC error is a provider telling us to slow down (then it is retried). */
export function isRateLimitError(e: RpcErrorShape): boolean {
  if (e.code === 429) return true;
  const m = e.message.toLowerCase();
  if (RATE_LIMIT_WORDS.some((w) => m.includes(w))) return true;
  // Alchemy's "exceeded its compute units per second capacity" and kin, without matching
  // "exceeded" alone (eth_getLogs limits say "exceeded" too).
  return m.includes("exceeded") && (m.includes("capacity") || m.includes("compute units"));
}

/** A wait the provider asked for in its error body (Infura: data.rate.backoff_seconds). */
export function backoffHintMs(e: RpcErrorShape): number | undefined {
  const data = e.data as { rate?: { backoff_seconds?: unknown } } | undefined;
  const s = data?.rate?.backoff_seconds;
  if (typeof s === "number" && Number.isFinite(s) && s >= 0) return Math.round(s * 1000);
  const m = /retry (?:in|after) (\d+(?:\.\d+)?) ?(ms|s|seconds?)\b/i.exec(e.message);
  if (m === null) return undefined;
  const n = Number(m[1]);
  return m[2] === "ms" ? n : Math.round(n * 1000);
}

/** HTTP Retry-After: delay-seconds or an HTTP date; undefined when absent or malformed. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** HTTP statuses worth another try: rate limits and a gateway's temporary failures. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || status === 500 || (status >= 502 && status <= 504);
}

const RANGE_WORDS = [
  "range too large",
  "range is too large",
  "range too wide",
  "range is too wide",
  "block range",
  "exceeds limit of",
  "exceed maximum block range",
  "query returned more than",
  "query exceeds max",
  "log response size exceeded",
  "response size should not",
  "limited to a",
  "blocks distance",
  "backend response too large",
  "logs matched by query exceeds",
  "max range",
  "limit the query",
  "too many blocks",
  "number of requested blocks",
];

/**
 * Whether an eth_getLogs error says the range (or its result) is too large; with the block count
 * the provider suggests when it names one, else `undefined` (then halve).
 */
export function logRangeLimit(e: RpcErrorShape): { suggested: number | undefined } | undefined {
  const m = e.message.toLowerCase();
  if (isRateLimitError(e) || !RANGE_WORDS.some((w) => m.includes(w))) return undefined;
  // Alchemy and Infura name a range that works: [0xfrom, 0xto].
  const pair = /\[0x([0-9a-f]+),\s*0x([0-9a-f]+)\]/.exec(m);
  if (pair !== null) {
    const span = Number.parseInt(pair[2]!, 16) - Number.parseInt(pair[1]!, 16) + 1;
    if (span > 0) return { suggested: span };
  }
  const limit =
    /limit of ([\d,]+)/.exec(m) ??
    /limited to an? ([\d,]+)/.exec(m) ??
    /maximum(?: block range)?:? \(?(?:maximum )?([\d,]+)/.exec(m) ??
    /max(?:imum)? (?:block )?range:? ([\d,]+)/.exec(m) ??
    /blocks distance: ([\d,]+)/.exec(m) ??
    /at most ([\d,]+) blocks/.exec(m) ??
    /maximum is set to ([\d,]+)/.exec(m) ??
    /requested blocks is ([\d,]+)/.exec(m);
  const n = limit === null ? Number.NaN : Number(limit[1]!.replace(/,/g, ""));
  return { suggested: Number.isFinite(n) && n > 0 ? n : undefined };
}

const NOT_ARCHIVE_WORDS = [
  "missing trie node",
  "header not found",
  "state is not available",
  "historical state",
  "state not available",
  "state unavailable",
  "is pruned",
  "pruned history",
  "distance to target block exceeds maximum",
  "unknown block",
  "state histories haven't been fully indexed",
  "old data not available",
  "block not found",
  "no state available",
];

/** The part of an error that says the upstream lacks state at a block, or undefined. */
export function notArchiveReason(e: RpcErrorShape): string | undefined {
  const m = e.message.toLowerCase();
  const word = NOT_ARCHIVE_WORDS.find((w) => m.includes(w));
  return word === undefined ? undefined : word;
}

/** Whether a refused method means "not offered here" (so a fallback applies), not a bad request. */
export function isMethodUnavailable(e: RpcErrorShape): boolean {
  if (e.code === -32601 || e.code === -32001) return true;
  const m = e.message.toLowerCase();
  return (
    m.includes("not whitelisted") ||
    m.includes("not supported") ||
    m.includes("unsupported method") ||
    m.includes("method not found") ||
    m.includes("does not exist") ||
    m.includes("not available on") ||
    m.includes("not allowed")
  );
}

/** Whether an error body refuses batching itself (then calls go one per request). */
export function isBatchRefusal(message: string): boolean {
  const m = message.toLowerCase();
  return m.includes("batch");
}
