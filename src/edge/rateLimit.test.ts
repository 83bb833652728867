import assert from "node:assert/strict";
import { test } from "node:test";
import { allowed, DEFAULT_POLICY, parsePolicy, selectorClass } from "./policy.ts";
import { RateLimiter } from "./rateLimit.ts";

test("token bucket: burst, refill at the rate, batches cost their calls, Retry-After", () => {
  let now = 0;
  const limiter = new RateLimiter({ rate: 2, burst: 4 }, () => now);
  assert.equal(limiter.take("a", 3), undefined);
  assert.equal(limiter.take("a", 1), undefined);
  const refused = limiter.take("a", 1);
  assert.equal(refused?.status, 429);
  assert.equal(refused?.headers?.["retry-after"], "1");
  now += 1000; // +2 tokens
  assert.equal(limiter.take("a", 2), undefined);
  assert.equal(limiter.take("b", 4), undefined, "buckets are per client");
  assert.equal(
    limiter.take("c", 10)?.headers?.["retry-after"],
    "5",
    "more than the burst: wait for all of it",
  );
});

test("policy: first matching rule wins; selectors classify tags, numbers and hashes", () => {
  assert.equal(
    allowed(DEFAULT_POLICY, "public", { method: "eth_getBlockReceipts", params: ["latest"] }),
    false,
  );
  assert.equal(
    allowed(DEFAULT_POLICY, "dedicated", { method: "eth_getBlockReceipts", params: ["latest"] }),
    true,
  );
  assert.equal(allowed(DEFAULT_POLICY, "public", { method: "eth_getStorageAt", params: [] }), true);
  assert.equal(selectorClass({ method: "eth_getStorageAt", params: ["0x1", "0x0"] }), "latest");
  assert.equal(
    selectorClass({ method: "eth_getBlockReceipts", params: [`0x${"00".repeat(32)}`] }),
    "hash",
  );
  assert.equal(
    selectorClass({ method: "eth_getBlockReceipts", params: [{ blockNumber: "0x1" }] }),
    "number",
  );
  assert.equal(
    selectorClass({ method: "eth_getBlockReceipts", params: [{ blockNumber: "pending" }] }),
    "pending",
    "EIP-1898 objects carry tags too",
  );
  const policy = parsePolicy({ public: [{ method: "*", action: "deny", selectors: ["pending"] }] });
  assert.equal(
    allowed(policy, "public", { method: "eth_getBalance", params: ["0x0", "pending"] }),
    false,
  );
  assert.equal(
    allowed(policy, "public", {
      method: "eth_getBalance",
      params: ["0x0", { blockNumber: "pending" }],
    }),
    false,
    "a pending rule cannot be bypassed with the object form",
  );
  assert.equal(
    allowed(policy, "public", { method: "eth_getBalance", params: ["0x0", "latest"] }),
    true,
  );
  assert.throws(
    () => parsePolicy({ public: [{ method: "x", action: "maybe" }] }),
    /action must be/,
  );
});
