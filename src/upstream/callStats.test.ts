// The upstream figures a process keeps (calls, errors, retries, latency by method) and their sum
// across processes and threads.
import assert from "node:assert/strict";
import { test } from "node:test";
import { mergeUpstreamSeries, UPSTREAM_BUCKETS, UpstreamCallStats } from "./callStats.ts";

test("calls are counted by method, with their errors, retries and latency", () => {
  const stats = new UpstreamCallStats();
  const hooks = stats.hooks;
  hooks.onCall?.({ method: "eth_getStorageAt", seconds: 0.004, attempts: 1, error: undefined });
  hooks.onRetry?.({ method: "eth_getStorageAt", attempt: 1, delayMs: 10, reason: "503" });
  hooks.onCall?.({
    method: "eth_getStorageAt",
    seconds: 40,
    attempts: 2,
    error: "UPSTREAM_UNAVAILABLE",
  });
  hooks.onCall?.({ method: "eth_chainId", seconds: 0.02, attempts: 1, error: undefined });
  const [storage, chainId] = stats.snapshot();
  assert.equal(storage?.method, "eth_getStorageAt");
  assert.equal(storage?.calls, 2);
  assert.equal(storage?.retries, 1);
  assert.equal(storage?.sum, 40.004);
  assert.deepEqual(storage?.errors, { UPSTREAM_UNAVAILABLE: 1 });
  // 4 ms in the first bucket; 40 s past the last one (counted only in +Inf).
  assert.equal(storage?.buckets[0], 1);
  assert.equal(
    storage?.buckets.reduce((a, b) => a + b, 0),
    1,
  );
  assert.equal(chainId?.buckets[UPSTREAM_BUCKETS.indexOf(0.025)], 1);
});

test("snapshots add up method by method, and do not share state with their source", () => {
  const a = new UpstreamCallStats();
  const b = new UpstreamCallStats();
  a.hooks.onCall?.({ method: "eth_getBalance", seconds: 0.1, attempts: 1, error: undefined });
  b.hooks.onCall?.({ method: "eth_getBalance", seconds: 0.2, attempts: 1, error: "UPSTREAM_CALL" });
  b.hooks.onCall?.({ method: "eth_getCode", seconds: 0.1, attempts: 1, error: undefined });
  const snap = a.snapshot();
  const merged = mergeUpstreamSeries([snap, b.snapshot(), undefined]);
  const balance = merged.find((s) => s.method === "eth_getBalance");
  assert.equal(balance?.calls, 2);
  assert.deepEqual(balance?.errors, { UPSTREAM_CALL: 1 });
  assert.equal(merged.find((s) => s.method === "eth_getCode")?.calls, 1);
  assert.equal(snap[0]?.calls, 1, "the merge left its inputs alone");
});
