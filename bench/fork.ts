// Issue-26 figures for a chain forked from a live one: flashnode `dev --fork-url` and anvil
// `--fork-url` on the same upstream in the same run. The upstream is an anvil holding a contract
// whose call reads 200 storage slots; between it and both forks sits a proxy that adds 5 ms to
// every upstream request (a provider's round trip, at its shortest) and counts them. Per round,
// each fork starts afresh (a new datadir; anvil with --no-storage-caching) and is measured for:
//   - time to first answer after start (spawn → first eth_chainId answer);
//   - the cold first eth_call of the contract: its latency and the upstream requests it made;
//   - the same call again (warm), and the median of the 30 calls after it (its code paths warm).
// Rounds alternate the two. Run: npm run bench:fork [-- --rounds 5 --delay-ms 5 --slots 200]
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { asm, deployCode } from "../test/utils/evmAsm.ts";
import { rpcCaller } from "../test/utils/fixtures.ts";
import { freePort, waitForRpc } from "./compare/peers.ts";

const ROOT = resolve(import.meta.dirname, "..");
const ANVIL = join(ROOT, "node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil");
const BIN = join(ROOT, "bin/flashnode.js");
const SENDER = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    "delay-ms": { type: "string", default: "5" },
    slots: { type: "string", default: "200" },
  },
});
const ROUNDS = Number(values.rounds);
const DELAY_MS = Number(values["delay-ms"]);
const SLOTS = Number(values.slots);

/** One JSON-RPC call to the node at `url`. */
function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  return rpcCaller(() => url)<T>(method, params);
}

/** A contract whose call sums slots 0 … n-1 and returns the sum. */
function summingContract(n: number): string {
  return asm([
    "0x00",
    "0x00",
    "loop:",
    "JUMPDEST",
    "DUP1",
    `0x${n.toString(16)}`,
    "GT",
    "ISZERO",
    "@end",
    "JUMPI",
    "DUP1",
    "SLOAD",
    "DUP3",
    "ADD",
    "SWAP2",
    "POP",
    "0x01",
    "ADD",
    "@loop",
    "JUMP",
    "end:",
    "JUMPDEST",
    "POP",
    "0x00",
    "MSTORE",
    "0x20",
    "0x00",
    "RETURN",
  ]);
}

/** The upstream: anvil with the contract and its slots, one block mined over them. */
async function startUpstream(): Promise<{
  child: ChildProcess;
  url: string;
  contract: string;
  block: number;
}> {
  const port = await freePort();
  const child = spawn(ANVIL, ["--silent", "--port", String(port)], { stdio: "ignore" });
  const url = `http://127.0.0.1:${port}/`;
  await waitForRpc(url, child);
  const hash = await rpc<string>(url, "eth_sendTransaction", [
    { from: SENDER, data: deployCode(summingContract(SLOTS)) },
  ]);
  // anvil answers eth_sendTransaction before its automined block is in (a moment later).
  let receipt: { contractAddress: string } | null = null;
  for (let i = 0; receipt === null && i < 200; i++) {
    receipt = await rpc<{ contractAddress: string } | null>(url, "eth_getTransactionReceipt", [
      hash,
    ]);
    if (receipt === null) await new Promise((r) => setTimeout(r, 25));
  }
  if (receipt === null) throw new Error(`the upstream never mined ${hash}`);
  const { contractAddress } = receipt;
  for (let i = 0; i < SLOTS; i++)
    await rpc(url, "anvil_setStorageAt", [
      contractAddress,
      `0x${i.toString(16)}`,
      `0x${(i + 1).toString(16).padStart(64, "0")}`,
    ]);
  await rpc(url, "evm_mine");
  const block = Number(await rpc<string>(url, "eth_blockNumber"));
  return { child, url, contract: contractAddress, block };
}

type Proxy = { url: string; requests: number; calls: number; close(): void };

/** Forwards to `target` after `delayMs`, counting HTTP requests and JSON-RPC calls. */
async function startDelayProxy(target: string, delayMs: number): Promise<Proxy> {
  const proxy: Proxy = { url: "", requests: 0, calls: 0, close: () => server.close() };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    proxy.requests++;
    const parsed = JSON.parse(body) as unknown;
    proxy.calls += Array.isArray(parsed) ? parsed.length : 1;
    await new Promise((r) => setTimeout(r, delayMs));
    const answer = await fetch(target, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    res.writeHead(answer.status, { "content-type": "application/json" });
    res.end(await answer.text());
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return proxy;
}

type Peer = "flashnode" | "anvil";
type Round = {
  startMs: number;
  coldMs: number;
  coldRequests: number;
  coldCalls: number;
  warmMs: number;
  warmRequests: number;
  /** Median of the next 30 calls: the call once its code paths are warm too. */
  steadyMs: number;
};

async function firstAnswer(url: string, child: ChildProcess, started: number): Promise<number> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${url}: exited (${child.exitCode})`);
    try {
      await rpc(url, "eth_chainId");
      return performance.now() - started;
    } catch {
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

async function round(
  peer: Peer,
  proxy: Proxy,
  upstream: { contract: string; block: number },
): Promise<Round> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const args =
    peer === "anvil"
      ? [
          ANVIL,
          [
            "--silent",
            "--port",
            String(port),
            "--fork-url",
            proxy.url,
            "--fork-block-number",
            String(upstream.block),
            "--no-storage-caching",
          ],
        ]
      : [
          process.execPath,
          [
            BIN,
            "dev",
            "--port",
            String(port),
            "--fork-url",
            proxy.url,
            "--fork-block-number",
            String(upstream.block),
            "--datadir",
            mkdtempSync(join(tmpdir(), "flashnode-bench-fork-")),
            "--log-level",
            "warn",
          ],
        ];
  const started = performance.now();
  const child = spawn(args[0] as string, args[1] as string[], { stdio: "ignore" });
  try {
    const startMs = await firstAnswer(url, child, started);
    const call = async () => {
      proxy.requests = 0;
      proxy.calls = 0;
      const t0 = performance.now();
      const out = await rpc<string>(url, "eth_call", [
        { to: upstream.contract, data: "0x" },
        "latest",
      ]);
      const ms = performance.now() - t0;
      const want = BigInt((SLOTS * (SLOTS + 1)) / 2);
      if (BigInt(out) !== want) throw new Error(`${peer}: eth_call answered ${out}, want ${want}`);
      return { ms, requests: proxy.requests, calls: proxy.calls };
    };
    const cold = await call();
    const warm = await call();
    const steady: number[] = [];
    for (let i = 0; i < 30; i++) steady.push((await call()).ms);
    return {
      startMs,
      coldMs: cold.ms,
      coldRequests: cold.requests,
      coldCalls: cold.calls,
      warmMs: warm.ms,
      warmRequests: warm.requests,
      steadyMs: median(steady),
    };
  } finally {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGINT");
    await exited;
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const upstream = await startUpstream();
const proxy = await startDelayProxy(upstream.url, DELAY_MS);
const results: Record<Peer, Round[]> = { flashnode: [], anvil: [] };
try {
  for (let r = 0; r < ROUNDS; r++) {
    for (const peer of (r % 2 === 0 ? ["flashnode", "anvil"] : ["anvil", "flashnode"]) as Peer[]) {
      const x = await round(peer, proxy, upstream);
      results[peer].push(x);
      console.log(
        `round ${r + 1} ${peer.padEnd(9)} start ${x.startMs.toFixed(0)} ms, cold call ${x.coldMs.toFixed(1)} ms (${x.coldRequests} requests, ${x.coldCalls} calls), warm ${x.warmMs.toFixed(1)} ms (${x.warmRequests} requests), next 30: median ${x.steadyMs.toFixed(1)} ms`,
      );
    }
  }
} finally {
  proxy.close();
  upstream.child.kill("SIGKILL");
}
console.log(`\nmedians of ${ROUNDS} rounds, ${SLOTS} slots, +${DELAY_MS} ms per upstream request:`);
console.log(
  "| | time to first answer | cold first eth_call | upstream requests (calls) | warm eth_call | warm requests | next 30 calls, median |",
);
console.log("|---|---|---|---|---|---|---|");
for (const peer of ["flashnode", "anvil"] as Peer[]) {
  const rs = results[peer];
  console.log(
    `| ${peer} | ${median(rs.map((x) => x.startMs)).toFixed(0)} ms | ${median(rs.map((x) => x.coldMs)).toFixed(1)} ms | ${median(rs.map((x) => x.coldRequests))} (${median(rs.map((x) => x.coldCalls))}) | ${median(rs.map((x) => x.warmMs)).toFixed(1)} ms | ${median(rs.map((x) => x.warmRequests))} | ${median(rs.map((x) => x.steadyMs)).toFixed(1)} ms |`,
  );
}
