// A fork's upstream in /metrics and in the log (issue 30, item 11): its calls by method, their
// errors by code, retries and latency, whichever thread made them (the sequencer's seal reads
// here); anvil_reset says in one info line what the chain moved to.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createLogger } from "../../src/log/logger.ts";
import type { RunningNode } from "../../src/node/plan.ts";
import { upstreamOptions } from "../../src/upstream/options.ts";
import { type Anvil, startAnvilUpstream } from "../utils/anvilUpstream.ts";
import { pollUntil, startTestDevNode } from "../utils/devChain.ts";
import { call, tempDatadir } from "../utils/fixtures.ts";
import { type RpcProxy, startRpcProxy } from "../utils/rpcProxy.ts";

type Line = { msg: string; [field: string]: unknown };
const lines: Line[] = [];
const logger = createLogger("info", { write: (s: string) => void lines.push(JSON.parse(s)) });

let anvil: Anvil;
let proxy: RpcProxy;
let node: RunningNode;

before(async () => {
  anvil = await startAnvilUpstream();
  await anvil.rpc("evm_mine", []);
  proxy = await startRpcProxy(anvil.url);
  node = await startTestDevNode({
    datadir: tempDatadir("fork-metrics"),
    logger,
    blockTimeMs: 500,
    upstream: { options: upstreamOptions(proxy.url, { retries: 1, retryBackoffMs: 10 }) },
  });
});

after(async () => {
  proxy.fault = undefined;
  await node?.close();
  await proxy?.close();
  anvil?.stop();
});

/** A sample's value in the node's /metrics (0 when absent). */
async function sample(name: string, labels: Record<string, string>): Promise<number> {
  const text = await (await fetch(`${node.url}metrics`)).text();
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split("\n")) {
    const m = /^(\w+)\{([^}]*)\} (\S+)$/.exec(line);
    if (m === null || m[1] !== name) continue;
    const have = m[2]!.split(",");
    if (want.every((w) => have.includes(w))) return Number(m[3]);
  }
  return 0;
}

test("the upstream's calls, errors, retries and latency are in /metrics, by method", async () => {
  const storage = { method: "eth_getStorageAt" };
  // Every block's seal reads the system contracts' slots it overwrites.
  await pollUntil(
    () => sample("flashnode_upstream_requests_total", storage),
    (n) => n >= 2,
  );
  assert.ok((await sample("flashnode_upstream_request_duration_seconds_count", storage)) >= 2);
  assert.ok((await sample("flashnode_upstream_request_duration_seconds_sum", storage)) > 0);
  // A 503 on every storage read: each is retried once, then fails as unavailable.
  proxy.fault = ({ calls }) =>
    calls.some((c) => c.method === "eth_getStorageAt")
      ? { status: 503, body: "Service Unavailable" }
      : undefined;
  try {
    const errors = await pollUntil(
      () => sample("flashnode_upstream_errors_total", { ...storage, code: "UPSTREAM_UNAVAILABLE" }),
      (n) => n >= 1,
    );
    assert.ok(errors >= 1);
    assert.ok((await sample("flashnode_upstream_retries_total", storage)) >= 1);
  } finally {
    proxy.fault = undefined;
  }
});

test("anvil_reset logs what the chain moved to, in one info line", async () => {
  const seen = lines.length;
  await call(node.url, "anvil_reset", [{ forking: { jsonRpcUrl: proxy.url, blockNumber: 1 } }]);
  const said = await pollUntil(
    async () => lines.slice(seen).filter((l) => l.msg.startsWith("anvil_reset")),
    (l) => l.length > 0,
  );
  assert.equal(said.length, 1);
  assert.equal(said[0]!.msg, "anvil_reset: forked anew");
  assert.equal(said[0]!.block, 1);
  assert.equal(said[0]!.chainId, 31337);
  assert.match(String(said[0]!.upstream), /^127\.0\.0\.1:\d+$/);
  await call(node.url, "anvil_reset", []);
  const own = await pollUntil(
    async () => lines.slice(seen).filter((l) => l.msg === "anvil_reset: a new dev chain"),
    (l) => l.length > 0,
  );
  assert.equal(own.length, 1);
});
