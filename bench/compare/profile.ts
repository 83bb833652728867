// `node --import tsx bench/compare/profile.ts [--workload batch|latest|historical|pending|receipts10|receipts200] [--cpu-prof]`: one
// flashnode dev node (as `npm run bench` runs it, one RPC reader) pinned to CPU 1 under wrk on
// CPU 0, for profiling a workload alone. With --cpu-prof, every process writes a .cpuprofile
// to --dir on exit (the reader's is the one with the RPC work).

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { BIN, transferSigner } from "../lib/devChain.ts";
import { waitForOutput } from "../lib/http.ts";
import { pin } from "./peers.ts";
import { buildSeed } from "./seed.ts";
import { luaScript, runWrk } from "./wrk.ts";

const { values } = parseArgs({
  options: {
    workload: { type: "string", default: "batch" },
    seconds: { type: "string", default: "10" },
    rounds: { type: "string", default: "1" },
    "cpu-prof": { type: "boolean", default: false },
    dir: { type: "string", default: "/tmp/prof" },
  },
});
const KEY = "benchkey0001";

/** User + system CPU time of a process (all its threads) so far, in ms. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
}
const { accounts, common } = await transferSigner(10);
const seed = buildSeed(common, accounts, { smallBlocks: 20, bigBlocks: 2, tailBlocks: 10 });
// Node flags go before the script; the cluster forks the readers with the same flags.
const nodeFlags = values["cpu-prof"] ? ["--cpu-prof", `--cpu-prof-dir=${values.dir}`] : [];
const datadir = mkdtempSync(join(tmpdir(), "flashnode-profile-"));
const child = spawn(
  process.execPath,
  [
    ...nodeFlags,
    BIN,
    "dev",
    // The benchmark's chain: plain Ethereum, as `npm run bench` runs it (no OP-stack deposits).
    "--ethereum",
    "--datadir",
    datadir,
    "--port",
    "0",
    "--block-time",
    "3600s",
    "--rate-limit",
    "0",
    "--api-key",
    KEY,
    "--rpc-workers",
    "1",
    "--log-level",
    "warn",
  ],
  { stdio: ["ignore", "pipe", "pipe"] },
);
const url = await waitForOutput(child, /JSON-RPC \(public\):\s+(\S+)/);
const rpcUrl = `${url}rpc/${KEY}`;
const rpc = async (method: string, params: unknown[] = []) =>
  (await (
    await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    })
  ).json()) as { result?: unknown };
try {
  for (const block of seed.blocks) {
    for (const raw of block) await rpc("eth_sendRawTransaction", [raw]);
    await rpc("evm_mine");
  }
  pin(child.pid!, "1");
  // Blocks: 1 deploys, 2..21 hold 10 transactions, 22 and 23 hold 200.
  const receiptsBlock = { receipts10: 2, receipts200: 22 }[values.workload];
  const body =
    receiptsBlock !== undefined
      ? `'{"jsonrpc":"2.0","id":1,"method":"eth_getBlockReceipts","params":["0x${receiptsBlock.toString(16)}"]}'`
      : values.workload === "batch"
        ? `(function() local t = {} for i = 1, 100 do t[i] = string.format('{"jsonrpc":"2.0","id":%d,"method":"eth_getStorageAt","params":["${seed.contract}","0x%x","latest"]}', i, math.random(1, ${seed.slots})) end return "[" .. table.concat(t, ",") .. "]" end)()`
        : `string.format('{"jsonrpc":"2.0","id":1,"method":"eth_getStorageAt","params":["${seed.contract}","0x%x","${values.workload}"]}', math.random(1, ${seed.slots}))`;
  const script = luaScript(`/rpc/${KEY}`, body);
  await runWrk(rpcUrl, script, 3, 32, { threads: 1, cpus: "0" });
  const calls = values.workload === "batch" ? 100 : 1;
  for (let r = 0; r < Number(values.rounds); r++) {
    const cpu0 = cpuMs(child.pid!);
    const res = await runWrk(rpcUrl, script, Number(values.seconds), 32, { threads: 1, cpus: "0" });
    console.log(
      `${values.workload}: ${res.requestsPerSecond.toFixed(0)} req/s, p50 ${res.p50Ms} ms, p99 ${res.p99Ms} ms, errors ${res.errors}, steal ${res.stealMs} ms, node CPU ${((1000 * (cpuMs(child.pid!) - cpu0)) / (res.requests * calls)).toFixed(2)} µs per call`,
    );
  }
} finally {
  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
}
