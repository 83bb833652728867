// `npm run bench`: flashnode vs anvil on loopback, on the same chain, under the same wrk load,
// in alternating rounds, plus the ceiling of a bare node:http server. See docs/benchmarks.md.
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { startDevChild, transferSigner } from "../lib/devChain.ts";
import { waitForOutput } from "../lib/http.ts";
import { buildSeed } from "./seed.ts";
import { ensureWrk, luaScript, runWrk, type WrkResult } from "./wrk.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const ANVIL = join(ROOT, "node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil");
const KEY = "benchkey0001";
const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    rounds: { type: "string", default: "3" },
    connections: { type: "string", default: "16" },
  },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const CONNECTIONS = Number(values.connections);

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const json = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (json.error !== undefined) throw new Error(`${method}: ${json.error.message}`);
  return json.result;
}

ensureWrk();
const { accounts, common } = await transferSigner(10);
const seed = buildSeed(common, accounts);

const anvil = spawn(
  ANVIL,
  [
    "--port",
    "0",
    "--no-mining",
    "--chain-id",
    "31337",
    "--accounts",
    "10",
    "--balance",
    "10000",
    "--gas-limit",
    "60000000",
  ],
  { stdio: ["ignore", "pipe", "pipe"] },
);
const anvilPort = await waitForOutput(anvil, /Listening on 127\.0\.0\.1:(\d+)/);
const anvilUrl = `http://127.0.0.1:${anvilPort}/`;
const { child: flash, url: flashBase } = await startDevChild([
  "--block-time",
  "3600s",
  "--rate-limit",
  "0",
  "--api-key",
  KEY,
  "--log-level",
  "warn",
]);
const flashUrl = `${flashBase}rpc/${KEY}`;
const nodes = [
  { name: "flashnode", url: flashUrl, path: `/rpc/${KEY}` },
  { name: "anvil", url: anvilUrl, path: "/" },
] as const;

try {
  // ---- seed the same chain into both ---------------------------------------------------------
  const t0 = performance.now();
  for (const block of seed.blocks) {
    for (const node of nodes) {
      for (const raw of block) await rpc(node.url, "eth_sendRawTransaction", [raw]);
      await rpc(node.url, "evm_mine");
    }
  }
  const heads = await Promise.all(
    nodes.map(async (n) => Number(await rpc(n.url, "eth_blockNumber"))),
  );
  console.log(
    `seeded ${seed.blocks.length} blocks (${seed.blocks.flat().length} transactions) into both in ${((performance.now() - t0) / 1000).toFixed(1)} s; heads ${heads.join(" / ")}`,
  );
  if (heads[0] !== heads[1]) throw new Error("the two chains differ in length");
  const head = heads[0]!;
  const smallBlock = 2;
  const bigBlock = 102;
  // Same chain, same answers: state and receipts.
  let checked = 0;
  for (let i = 0; i < 300; i++) {
    const slot = `0x${(1 + Math.floor(Math.random() * seed.slots)).toString(16)}`;
    const block = `0x${(1 + Math.floor(Math.random() * head)).toString(16)}`;
    const [a, b] = await Promise.all(
      nodes.map((n) => rpc(n.url, "eth_getStorageAt", [seed.contract, slot, block])),
    );
    if (a !== b)
      throw new Error(
        `storage differs at slot ${slot} block ${block}: ${String(a)} vs ${String(b)}`,
      );
    checked++;
  }
  for (const n of [smallBlock, bigBlock]) {
    const [a, b] = (await Promise.all(
      nodes.map((node) => rpc(node.url, "eth_getBlockReceipts", [`0x${n.toString(16)}`])),
    )) as Array<
      Array<{ transactionHash: string; status: string; gasUsed: string; logs: unknown[] }>
    >;
    // The same transactions with the same outcome; the order inside a block is each
    // sequencer's own (anvil orders its pool by fee, flashnode by arrival).
    const key = (r: {
      transactionHash: string;
      status: string;
      gasUsed: string;
      logs: unknown[];
    }) => `${r.transactionHash}:${r.status}:${r.gasUsed}:${r.logs.length}`;
    const sa = a!.map(key).sort();
    const sb = b!.map(key).sort();
    const diff = sa.findIndex((x, i) => x !== sb[i]);
    if (sa.length !== sb.length || diff >= 0) {
      throw new Error(`receipts of block ${n} differ: ${sa[diff]} vs ${sb[diff]}`);
    }
  }
  console.log(
    `both nodes agree: ${checked} random storage reads (latest and historical), receipts of blocks ${smallBlock} (10) and ${bigBlock} (200)`,
  );

  // ---- workloads -------------------------------------------------------------------------------
  const storage = (tag: string) =>
    `string.format('{"jsonrpc":"2.0","id":1,"method":"eth_getStorageAt","params":["${seed.contract}","0x%x","${tag}"]}', math.random(1, ${seed.slots}))`;
  const historical = `string.format('{"jsonrpc":"2.0","id":1,"method":"eth_getStorageAt","params":["${seed.contract}","0x%x","0x%x"]}', math.random(1, ${seed.slots}), math.random(1, ${head}))`;
  const batch = `(function() local t = {} for i = 1, 100 do t[i] = string.format('{"jsonrpc":"2.0","id":%d,"method":"eth_getStorageAt","params":["${seed.contract}","0x%x","latest"]}', i, math.random(1, ${seed.slots})) end return "[" .. table.concat(t, ",") .. "]" end)()`;
  const workloads = [
    { name: "eth_getStorageAt latest", calls: 1, body: storage("latest") },
    { name: "eth_getStorageAt historical", calls: 1, body: historical },
    { name: "eth_getStorageAt pending", calls: 1, body: storage("pending") },
    {
      name: "eth_getBlockReceipts 10 receipts",
      calls: 1,
      body: `'{"jsonrpc":"2.0","id":1,"method":"eth_getBlockReceipts","params":["0x${smallBlock.toString(16)}"]}'`,
    },
    {
      name: "eth_getBlockReceipts 200 receipts",
      calls: 1,
      body: `'{"jsonrpc":"2.0","id":1,"method":"eth_getBlockReceipts","params":["0x${bigBlock.toString(16)}"]}'`,
    },
    { name: "batch of 100 eth_getStorageAt", calls: 100, body: batch },
  ];
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const rows: string[] = [];
  const results = new Map<string, Map<string, WrkResult[]>>();
  for (const w of workloads) {
    const perNode = new Map<string, WrkResult[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const node of nodes) {
        const script = luaScript(node.path, w.body);
        const r = await runWrk(node.url.replace(node.path, "/"), script, SECONDS, CONNECTIONS);
        if (!perNode.has(node.name)) perNode.set(node.name, []);
        perNode.get(node.name)!.push(r);
      }
    }
    results.set(w.name, perNode);
    const f = perNode.get("flashnode")!;
    const a = perNode.get("anvil")!;
    const fr = median(f.map((r) => r.requestsPerSecond));
    const ar = median(a.map((r) => r.requestsPerSecond));
    rows.push(
      `| ${w.name} | ${fr.toFixed(0)} | ${(fr * w.calls).toFixed(0)} | ${median(f.map((r) => r.p50Ms)).toFixed(2)} | ${median(f.map((r) => r.p99Ms)).toFixed(2)} | ` +
        `${ar.toFixed(0)} | ${(ar * w.calls).toFixed(0)} | ${median(a.map((r) => r.p50Ms)).toFixed(2)} | ${median(a.map((r) => r.p99Ms)).toFixed(2)} | **${(fr / ar).toFixed(2)}×** | ${[...f, ...a].reduce((n, r) => n + r.errors, 0)} |`,
    );
    console.log(rows.at(-1));
  }

  // ---- ceiling: a bare node:http server answering a fixed response of the same size ------------
  const sample = await (
    await fetch(flashUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "eth_getStorageAt",
        params: [seed.contract, "0x1", "latest"],
      }),
    })
  ).text();
  const bare = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(sample),
      });
      res.end(sample);
    });
  });
  await new Promise<void>((ok) => bare.listen(0, "127.0.0.1", ok));
  const barePort = (bare.address() as AddressInfo).port;
  const ceilingRuns: WrkResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    ceilingRuns.push(
      await runWrk(
        `http://127.0.0.1:${barePort}/`,
        luaScript("/", storage("latest")),
        SECONDS,
        CONNECTIONS,
      ),
    );
  }
  bare.close();
  const ceiling = median(ceilingRuns.map((r) => r.requestsPerSecond));
  const latest = median(
    results
      .get("eth_getStorageAt latest")!
      .get("flashnode")!
      .map((r) => r.requestsPerSecond),
  );
  const hist = median(
    results
      .get("eth_getStorageAt historical")!
      .get("flashnode")!
      .map((r) => r.requestsPerSecond),
  );
  const pend = median(
    results
      .get("eth_getStorageAt pending")!
      .get("flashnode")!
      .map((r) => r.requestsPerSecond),
  );

  console.log("");
  console.log(
    `wrk -t1 -c${CONNECTIONS} -d${SECONDS}s, ${ROUNDS} alternating rounds per workload, medians; both nodes on 127.0.0.1, same machine (2 cores)`,
  );
  console.log(
    "| workload | flashnode req/s | calls/s | p50 ms | p99 ms | anvil req/s | calls/s | p50 ms | p99 ms | flashnode/anvil | errors |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|");
  for (const r of rows) console.log(r);
  console.log("");
  console.log(
    `ceiling (bare node:http, same response size ${Buffer.byteLength(sample)} B): ${ceiling.toFixed(0)} req/s; flashnode eth_getStorageAt latest / ceiling = ${(latest / ceiling).toFixed(2)}`,
  );
  console.log(
    `flashnode historical / latest = ${(hist / latest).toFixed(2)}, pending / latest = ${(pend / latest).toFixed(2)} (req/s)`,
  );
} finally {
  anvil.kill("SIGTERM");
  flash.kill("SIGTERM");
}
