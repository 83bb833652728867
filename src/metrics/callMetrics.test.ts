import assert from "node:assert/strict";
import { test } from "node:test";
import { AggregatorRegistry, Registry } from "prom-client";
import { CallMetrics, registerCallMetrics } from "./callMetrics.ts";

test("call figures: counted per method and tier, summed across processes, in Prometheus text", async () => {
  const a = new CallMetrics();
  const b = new CallMetrics();
  a.observe("eth_chainId", "public", 0.0002, undefined);
  a.observe("eth_chainId", "public", 0.003, -32602);
  b.observe("eth_chainId", "public", 7, undefined); // above every bucket: only +Inf
  b.observe("eth_getStorageAt", "dedicated", 0.00005, undefined);
  // Two processes' registries, summed as a cluster scrape sums them (prom-client's aggregator).
  const ra = new Registry();
  const rb = new Registry();
  registerCallMetrics(ra, () => a.snapshot());
  registerCallMetrics(rb, () => b.snapshot());
  const text = await AggregatorRegistry.aggregate([
    await ra.getMetricsAsJSON(),
    await rb.getMetricsAsJSON(),
  ]).metrics();
  assert.match(text, /^flashnode_rpc_requests_total\{method="eth_chainId",tier="public"\} 3$/m);
  assert.match(
    text,
    /^flashnode_rpc_errors_total\{method="eth_chainId",tier="public",code="-32602"\} 1$/m,
  );
  const bucket = (le: string) =>
    new RegExp(
      `^flashnode_rpc_request_duration_seconds_bucket\\{le="${le}",method="eth_chainId",tier="public"\\} (\\d+)$`,
      "m",
    ).exec(text)?.[1];
  assert.equal(bucket("0.0001"), "0");
  assert.equal(bucket("0.00025"), "1");
  assert.equal(bucket("0.005"), "2", "cumulative");
  assert.equal(bucket("5"), "2");
  assert.equal(bucket("\\+Inf"), "3");
  assert.match(
    text,
    /^flashnode_rpc_request_duration_seconds_count\{method="eth_chainId",tier="public"\} 3$/m,
  );
  assert.match(text, /^# TYPE flashnode_rpc_request_duration_seconds histogram$/m);
});
