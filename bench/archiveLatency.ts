// Issue-2 figures: import throughput of the sample chain (Mgas/s) and eth_getStorageAt p50/p99,
// latest vs historical, over HTTP against `flashnode serve` on loopback.
// Run: npm run bench:archive [-- --requests 5000]
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { benchAgent, postJson, waitForOutput } from "./lib/http.ts";

const ROOT = resolve(import.meta.dirname, "..");
const BIN = join(ROOT, "bin/flashnode.js");
const SAMPLE = join(ROOT, "fixtures/execution-apis");
const CONTRACT = "0x7dcd17433742f4c0ca53122ab541d0ba67fc27df";
const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "5000" },
    runs: { type: "string", default: "3" },
  },
});
const REQUESTS = Number(values.requests);

function importOnce(sync: boolean): { mgas: number; line: string; datadir: string } {
  const datadir = mkdtempSync(join(tmpdir(), "flashnode-bench-"));
  const args = [
    BIN,
    "import",
    "--genesis",
    join(SAMPLE, "genesis.json"),
    "--datadir",
    datadir,
    join(SAMPLE, "chain.rlp"),
  ];
  if (!sync) args.push("--no-sync");
  const r = spawnSync(process.execPath, args, { encoding: "utf8" });
  const line = r.stdout.trim().split("\n").at(-1) ?? "";
  const m = /= ([\d.]+) Mgas\/s/.exec(line);
  if (r.status !== 0 || m === null) throw new Error(`import failed: ${r.stderr}`);
  return { mgas: Number(m[1]), line, datadir };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function latency(port: number, block: () => string): Promise<{ p50: number; p99: number }> {
  const samples: number[] = [];
  for (let i = 0; i < REQUESTS + 500; i++) {
    const body = `{"jsonrpc":"2.0","id":1,"method":"eth_getStorageAt","params":["${CONTRACT}","0x0","${block()}"]}`;
    const t = process.hrtime.bigint();
    const text = await postJson(`http://127.0.0.1:${port}/`, body);
    const us = Number(process.hrtime.bigint() - t) / 1000;
    if (!text.includes('"result":"0x')) throw new Error(`bad answer: ${text}`);
    if (i >= 500) samples.push(us); // first 500 are warm-up
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

const runs = Number(values.runs);
for (const sync of [true, false]) {
  const results = Array.from({ length: runs }, () => importOnce(sync).mgas);
  console.log(
    `import (${sync ? "fsync per block" : "--no-sync"}): ${results.map((m) => m.toFixed(1)).join(", ")} Mgas/s (median ${results.sort((a, b) => a - b)[Math.floor(runs / 2)]!.toFixed(1)})`,
  );
}

const { datadir } = importOnce(true);
const server = spawn(
  process.execPath,
  // One RPC process: the latency of a read, not of several processes sharing two cores.
  [BIN, "serve", "--datadir", datadir, "--port", "0", "--rate-limit", "0", "--rpc-workers", "1"],
  {
    stdio: ["ignore", "pipe", "inherit"],
  },
);
const port = Number(await waitForOutput(server, /127\.0\.0\.1:(\d+)/));
try {
  const latest = await latency(port, () => "latest");
  const historical = await latency(port, () => `0x${Math.floor(Math.random() * 54).toString(16)}`);
  console.log(
    `eth_getStorageAt latest:     p50 ${latest.p50.toFixed(0)} µs, p99 ${latest.p99.toFixed(0)} µs (${REQUESTS} sequential requests, keep-alive)`,
  );
  console.log(
    `eth_getStorageAt historical: p50 ${historical.p50.toFixed(0)} µs, p99 ${historical.p99.toFixed(0)} µs (random block 0..53)`,
  );
  console.log(`historical/latest p50 ratio: ${(historical.p50 / latest.p50).toFixed(2)}`);
} finally {
  server.kill("SIGTERM");
  benchAgent.destroy();
}
