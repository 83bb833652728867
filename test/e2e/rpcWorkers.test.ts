// `flashnode serve --rpc-workers 2`: two reader processes on one port and one archive answer
// exactly as one process does; the rate limit and /metrics are the node's, not each reader's; a
// killed reader is replaced and its clients see connection errors only.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { RunningNode as RunningServer } from "../../src/node/plan.ts";
import { type CliNode, startReadersNode } from "../utils/cliNode.ts";
import { importFixtureChain } from "../utils/fixtures.ts";
import { startArchiveServer } from "../utils/nodes.ts";
import { silentLogger, testFrontendOptions } from "../utils/options.ts";
import { stopChild } from "../utils/processes.ts";
import { readerPids, waitForReplacement } from "../utils/readers.ts";

const KEY = "workers-test-key";
/** Slow refill: what the test tells apart is one burst for the node or one per reader. */
const RATE = 1;
const BURST = 10;
let datadir: string;
let primary: CliNode;
let url: string;
let single: RunningServer;

before(async () => {
  datadir = importFixtureChain("workers");
  single = await startArchiveServer({
    datadir,
    frontend: testFrontendOptions(),
    logger: silentLogger,
  });
  primary = await startReadersNode("serve", datadir, KEY, [
    "--rate-limit",
    String(RATE),
    "--rate-burst",
    String(BURST),
  ]);
  url = primary.url;
});

after(async () => {
  await stopChild(primary?.child);
  await single?.close();
});

/** One call on a connection of its own, so that successive calls spread over the readers. */
async function post(base: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(base, {
    method: "POST",
    headers: { "content-type": "application/json", connection: "close" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5000),
  });
  return { status: res.status, json: JSON.parse(await res.text()) };
}

function readers(): number[] {
  return readerPids(primary.child.pid!);
}

test("two readers answer what one process answers, for every selector", async () => {
  assert.equal(readers().length, 2, "two reader processes");
  const selectors = [
    "latest",
    "earliest",
    "pending",
    "safe",
    "finalized",
    "0x0",
    "0x10",
    "0x2a",
    "0x99",
  ];
  const sender = "0x7435ed30a8b4aeb0877cef0c6e8cffe834eb865f";
  const calls: Array<[string, unknown[]]> = [];
  for (const s of selectors) {
    calls.push(["eth_getBalance", [sender, s]]);
    calls.push(["eth_getStorageAt", ["0x0000000000000000000000000000000000000000", "0x0", s]]);
    calls.push(["eth_getBlockReceipts", [s]]);
    calls.push(["eth_getBlockByNumber", [s, false]]);
    calls.push(["eth_getTransactionCount", [sender, s]]);
  }
  for (const [method, params] of calls) {
    const body = { jsonrpc: "2.0", id: 7, method, params };
    const a = await post(`${url}rpc/${KEY}`, body);
    const b = await post(single.dedicatedUrl, body);
    assert.deepEqual(a.json, b.json, `${method} ${JSON.stringify(params)}`);
  }
});

test("the public rate limit holds for the node, not per reader", async () => {
  // Nothing used the public endpoint before: each reader's bucket starts at its share of the
  // burst (a slow machine only adds refill, which the bound below counts).
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      post(url, { jsonrpc: "2.0", id: i, method: "eth_chainId", params: [] }),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  const ok = results.filter((r) => r.status === 200).length;
  const limited = results.filter((r) => r.status === 429).length;
  assert.equal(ok + limited, 40);
  // One burst for the node (two readers each allowing a burst would let ~2× through).
  assert.ok(ok >= 1, "some calls pass");
  assert.ok(
    ok <= BURST + Math.ceil(RATE * seconds) + 1,
    `${ok} calls passed in ${seconds.toFixed(2)} s; the node allows ${BURST} + ${RATE}/s`,
  );
});

test("/metrics counts the calls of both readers, whichever answers it", async () => {
  const count = async () => {
    const text = await (await fetch(`${url}metrics`, { headers: { connection: "close" } })).text();
    const m =
      /flashnode_rpc_requests_total\{method="web3_clientVersion",tier="dedicated"\} (\d+)/.exec(
        text,
      );
    return Number(m?.[1] ?? 0);
  };
  for (let i = 0; i < 12; i++)
    await post(`${url}rpc/${KEY}`, {
      jsonrpc: "2.0",
      id: i,
      method: "web3_clientVersion",
      params: [],
    });
  for (let i = 0; i < 4; i++) assert.equal(await count(), 12);
});

test("a killed reader is replaced; its clients see connection errors, never a wrong answer", async () => {
  const before = readers();
  process.kill(before[0]!, "SIGKILL");
  let answered = 0;
  for (let i = 0; i < 30; i++) {
    try {
      const r = await post(`${url}rpc/${KEY}`, {
        jsonrpc: "2.0",
        id: i,
        method: "eth_blockNumber",
        params: [],
      });
      assert.deepEqual(r.json, { jsonrpc: "2.0", id: i, result: "0x36" });
      answered++;
    } catch (e) {
      if (e instanceof assert.AssertionError) throw e;
    }
  }
  assert.ok(answered > 0, "the other reader kept answering");
  const now = await waitForReplacement(primary.child.pid!, before[0]!, 2, 20_000);
  assert.equal(now.length, 2, "two readers again");
  assert.ok(!now.includes(before[0]!), "the killed one is gone");
  const r = await post(`${url}rpc/${KEY}`, {
    jsonrpc: "2.0",
    id: 1,
    method: "eth_blockNumber",
    params: [],
  });
  assert.deepEqual(r.json, { jsonrpc: "2.0", id: 1, result: "0x36" });
});
