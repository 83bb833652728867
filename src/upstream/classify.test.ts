import assert from "node:assert/strict";
import { test } from "node:test";
import {
  backoffHintMs,
  isMethodUnavailable,
  isRateLimitError,
  logRangeLimit,
  notArchiveReason,
  parseRetryAfter,
} from "./classify.ts";
import { htmlTitle, oneLine, quoteBody, upstreamHost } from "./errors.ts";
import { parseUpstreamHeader } from "./options.ts";

test("rate limits as providers send them are recognised; other errors are not", () => {
  const limited = [
    { code: 429, message: "Your app has exceeded its compute units per second capacity." },
    { code: -32005, message: "project ID request rate exceeded" },
    { code: -32005, message: "daily request count exceeded, request rate limited" },
    { code: -32005, message: "exceeded project rate limit" },
    { code: -32016, message: "over rate limit" },
    {
      code: -32007,
      message:
        "100/second request limit reached - reduce calls per second or upgrade your account at quicknode.com",
    },
    { code: -32012, message: "credits limited to 6000/sec" },
    { code: -32600, message: "Monthly capacity limit exceeded." },
    { code: -32000, message: "Too Many Requests" },
    { code: -32005, message: "rate limit exceeded" },
  ];
  for (const e of limited) assert.ok(isRateLimitError(e), e.message);
  const not = [
    { code: -32005, message: "query returned more than 10000 results" },
    { code: -32000, message: "execution reverted" },
    { code: -32000, message: "missing trie node abc (path )" },
    { code: -32602, message: "range 1000000 exceeds limit of 10000" },
    { code: -32600, message: "Log response size exceeded." },
  ];
  for (const e of not) assert.ok(!isRateLimitError(e), e.message);
});

test("waits asked for: Retry-After seconds or date, Infura's backoff_seconds", () => {
  assert.equal(parseRetryAfter("3"), 3000);
  assert.equal(parseRetryAfter(null), undefined);
  assert.equal(parseRetryAfter("soon"), undefined);
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(parseRetryAfter("Thu, 01 Jan 2026 00:00:05 GMT", now), 5000);
  assert.equal(parseRetryAfter("Thu, 01 Jan 2025 00:00:05 GMT", now), 0);
  assert.equal(
    backoffHintMs({
      code: -32005,
      message: "exceeded project rate limit",
      data: { rate: { allowed_rps: 5, backoff_seconds: 30, current_rps: 5.2 } },
    }),
    30_000,
  );
  assert.equal(backoffHintMs({ code: -32000, message: "too many requests, retry in 10s" }), 10_000);
  assert.equal(backoffHintMs({ code: -32000, message: "rate limited" }), undefined);
});

test("log range limits: the size the provider names, else halve", () => {
  const cases: Array<[string, number | undefined]> = [
    [
      "Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters, this block range should work: [0x10, 0x1f]",
      16,
    ],
    ["range 1000000 exceeds limit of 10000", 10_000],
    ["eth_getLogs is limited to a 10,000 range", 10_000],
    ["block range is too wide", undefined],
    ["block range is too wide (maximum 1024)", 1024],
    ["maximum [from, to] blocks distance: 10000", 10_000],
    ["exceed maximum block range: 5000", 5000],
    ["query returned more than 10000 results", undefined],
    ["block range too large", undefined],
    ["please limit the query to at most 1000 blocks", 1000],
  ];
  for (const [message, suggested] of cases)
    assert.deepEqual(logRangeLimit({ code: -32000, message }), { suggested }, message);
  assert.equal(logRangeLimit({ code: -32000, message: "execution reverted" }), undefined);
  assert.equal(logRangeLimit({ code: 429, message: "rate limit exceeded" }), undefined);
});

test("missing state is told apart from other errors", () => {
  const missing = [
    "missing trie node 1d3a… (path ) state 0x… is not available",
    "header not found",
    "historical state 0xabc is not available",
    "required historical state unavailable (reexec=128)",
    "state at block #100 is pruned",
    "distance to target block exceeds maximum (128)",
    "unknown block",
    "state histories haven't been fully indexed yet",
  ];
  for (const m of missing)
    assert.notEqual(notArchiveReason({ code: -32000, message: m }), undefined, m);
  assert.equal(notArchiveReason({ code: -32000, message: "execution reverted" }), undefined);
});

test("methods a gateway does not offer are told apart from bad requests", () => {
  assert.ok(isMethodUnavailable({ code: -32001, message: "rpc method is not whitelisted" }));
  assert.ok(
    isMethodUnavailable({
      code: -32601,
      message: "the method eth_getBlockReceipts does not exist/is not available",
    }),
  );
  assert.ok(
    !isMethodUnavailable({ code: -32602, message: "invalid argument 0: hex string has length 3" }),
  );
});

test("messages stay on one line and never show a URL's path (API keys live there)", () => {
  assert.equal(
    upstreamHost("https://eth-mainnet.g.alchemy.com/v2/SECRET"),
    "eth-mainnet.g.alchemy.com",
  );
  assert.equal(oneLine("a\n  b\tc "), "a b c");
  assert.equal(
    htmlTitle("<html><head><title>502 Bad Gateway</title></head></html>"),
    "502 Bad Gateway",
  );
  assert.equal(htmlTitle("<html><body><h1>Oops</h1></body></html>"), "Oops");
  assert.ok(quoteBody("x".repeat(500)).length < 200);
  assert.equal(quoteBody(""), "an empty body");
});

test("--fork-header takes Name: value", () => {
  assert.deepEqual(parseUpstreamHeader("Authorization: Bearer a:b"), [
    "Authorization",
    "Bearer a:b",
  ]);
  assert.throws(() => parseUpstreamHeader("no colon"), /Name: value/);
  assert.throws(() => parseUpstreamHeader("bad name: x"), /Name: value/);
});
