// Issue-12 figures for a replica fed through NATS JetStream (one machine, loopback):
//  1. the sequencer builds a chain of --blocks blocks (--txs-per-block transfers each, sent over
//     HTTP, one evm_mine per block) and publishes it: its rate in blocks/s and Mgas/s;
//  2. a new replica catches the whole chain up from the stream: catch-up time, apply rate;
//  3. flashblock published by the sequencer → visible in the replica's pending view, idle and
//     while the sequencer takes --rate transfers a second: the replica's own histogram, and the
//     source's /flashblocks → the replica's /flashblocks as one client sees both (each message
//     compared as text too: the replica renders it);
//  4. the replica's read throughput (wrk, eth_getStorageAt latest) idle and while following
//     --rate tx/s. The replica is pinned to CPU 1; nats-server, the sequencer, the transaction
//     sender and wrk share CPU 0, so the replica's core does only its own work.
// --source follower: the replica follows a follower instead (a dev sequencer, `follow --nats` of
// it, a replica of the follower with --fork-url); sections 1 and 2 need a sequencer source and
// are left out, 3 and 4 measure the replica against the follower.
// Run: npm run bench:replica [-- --source follower]   (bounded: a few minutes; needs nats-server and wrk)
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { HEADER, streamNames } from "../src/replica/streams.ts";
import { startNatsServer } from "../test/utils/nats.ts";
import { pin } from "./compare/peers.ts";
import { ensureWrk, luaScript, runWrk } from "./compare/wrk.ts";
import { BIN, startDevChild, transferSigner } from "./lib/devChain.ts";
import { type FlashblockTap, tapFlashblocks } from "./lib/flashblockTap.ts";
import { postJson, rpcBody, waitForOutput } from "./lib/http.ts";

const { values } = parseArgs({
  options: {
    blocks: { type: "string", default: "10000" },
    "txs-per-block": { type: "string", default: "4" },
    rate: { type: "string", default: "1000" },
    seconds: { type: "string", default: "10" },
    source: { type: "string", default: "sequencer" },
  },
});
const SOURCE = values.source;
if (SOURCE !== "sequencer" && SOURCE !== "follower")
  throw new Error(`--source ${SOURCE}: sequencer or follower`);
const BLOCKS = Number(values.blocks);
const TXS_PER_BLOCK = Number(values["txs-per-block"]);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const SENDERS = 20;
const KEY = "bench-key-0001";
const GAS_PER_TX = 21_000;
const f = (n: number) => n.toFixed(n < 10 ? 2 : 1);
ensureWrk();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const signer = await transferSigner(SENDERS);
const nonces = new Array<number>(SENDERS).fill(0);
let sender = 0;
function nextTransfer(): string {
  const from = sender++ % SENDERS;
  return signer.transfer(from, nonces[from]!++);
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const answer = JSON.parse(await postJson(url, rpcBody(method, params))) as {
    result?: unknown;
    error?: { message: string };
  };
  if (answer.error !== undefined) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result;
}

/** CPU seconds a process (all its threads) has used. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The replica's flashblock-visible histogram: cumulative counts by upper bound (s). */
async function visibleHistogram(base: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${base}metrics`)).text();
  const buckets = new Map<string, number>();
  for (const m of text.matchAll(
    /^flashnode_flashblock_visible_seconds_bucket\{le="([^"]+)"\} (\d+)$/gm,
  ))
    buckets.set(m[1]!, Number(m[2]));
  return buckets;
}

function describeDelta(before: Map<string, number>, after: Map<string, number>): string {
  const total = (after.get("+Inf") ?? 0) - (before.get("+Inf") ?? 0);
  if (total === 0) return "no flashblocks observed";
  const within = (le: string) => ((after.get(le) ?? 0) - (before.get(le) ?? 0)) / total;
  const bound = (q: number) => {
    for (const le of after.keys())
      if (within(le) >= q) return le === "+Inf" ? "> 100 ms" : `≤ ${Number(le) * 1000} ms`;
    return "?";
  };
  return `${total} flashblocks, p50 ${bound(0.5)}, p99 ${bound(0.99)}, within 5 ms ${(within("0.005") * 100).toFixed(1)}%, within 10 ms ${(within("0.01") * 100).toFixed(1)}%`;
}

/** Source /flashblocks → replica /flashblocks, for the flashblocks both showed since `from`. */
function describeTaps(
  source: FlashblockTap,
  replica: FlashblockTap,
  from: number,
  to: number,
): string {
  const lags: number[] = [];
  let differ = 0;
  for (const [key, r] of replica.arrivals) {
    const s = source.arrivals.get(key);
    if (s === undefined || s.at < from || s.at > to) continue;
    lags.push(r.at - s.at);
    if (r.text !== s.text) differ++;
  }
  if (lags.length === 0) return "no flashblocks on both streams";
  lags.sort((a, b) => a - b);
  const q = (p: number) => lags[Math.min(lags.length - 1, Math.floor(p * lags.length))]!;
  return `${lags.length} flashblocks, p50 ${f(q(0.5))} ms, p99 ${f(q(0.99))} ms, max ${f(lags[lags.length - 1]!)} ms; ${differ} messages differ from the source's`;
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

const nats = await startNatsServer();
const devDir = mkdtempSync(join(tmpdir(), "flashnode-bench-seq-"));
const common = ["--rate-limit", "0", "--api-key", KEY, "--log-level", "warn"];
let dev: ChildProcess | undefined;
let follower: ChildProcess | undefined;
let replica: ChildProcess | undefined;

/** `flashnode <args>` on port 0 with one RPC process; resolves with its public base URL. */
async function startChild(args: readonly string[]): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(
    process.execPath,
    [BIN, ...args, "--port", "0", "--rpc-workers", "1", ...common],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stderr?.on("data", (c: Buffer) => process.stderr.write(`[${args[0]}] ${c}`));
  return { child, base: await waitForOutput(child, /JSON-RPC \(public\):\s+(\S+)/) };
}

/** Sections 1 and 2: the sequencer builds and publishes a chain, a new replica catches it up. */
async function buildAndCatchUp(): Promise<string> {
  // ---- 1. the sequencer builds and publishes the chain ---------------------------------------
  const seq = await startDevChild(
    ["--nats", nats.url, "--block-time", "3600s", "--accounts", String(SENDERS), ...common],
    devDir,
  );
  dev = seq.child;
  const devUrl = `${seq.url}rpc/${KEY}`;
  const signed = Array.from({ length: BLOCKS * TXS_PER_BLOCK }, nextTransfer);
  const t0 = performance.now();
  for (let b = 0; b < BLOCKS; b++) {
    const batch = signed.slice(b * TXS_PER_BLOCK, (b + 1) * TXS_PER_BLOCK).map((raw, i) => ({
      jsonrpc: "2.0",
      id: i,
      method: "eth_sendRawTransaction",
      params: [raw],
    }));
    if (batch.length > 0) await postJson(devUrl, JSON.stringify(batch));
    await rpc(devUrl, "evm_mine");
  }
  const buildSeconds = (performance.now() - t0) / 1000;
  const head = Number(await rpc(devUrl, "eth_blockNumber"));
  const gas = BLOCKS * TXS_PER_BLOCK * GAS_PER_TX;
  console.log(
    `1. sequencer: ${BLOCKS} blocks, ${BLOCKS * TXS_PER_BLOCK} transfers sent over HTTP, one evm_mine each: ${f(buildSeconds)} s, ${f(BLOCKS / buildSeconds)} blocks/s, ${f(gas / buildSeconds / 1e6)} Mgas/s (head ${head})`,
  );
  // Publishing runs behind the seals: wait until the stream holds the head.
  {
    const nc = await connect({ servers: [nats.url] });
    const jsm = await jetstreamManager(nc);
    for (;;) {
      const info = await jsm.streams.info(streamNames("flashnode").blocks);
      const m = await jsm.streams.getMessage(info.config.name, { seq: info.state.last_seq });
      if (Number(m?.header.get(HEADER.block)) >= head) break;
      await sleep(100);
    }
    console.log(
      `   published to JetStream ${f((performance.now() - t0) / 1000 - buildSeconds)} s after the last seal`,
    );
    await nc.close();
  }

  // ---- 2. a new replica catches up from the stream -------------------------------------------
  const started = performance.now();
  // One RPC process: section 4 pins it to one core (readers are processes of their own).
  const r = await startChild([
    "replica",
    "--nats",
    nats.url,
    "--datadir",
    mkdtempSync(join(tmpdir(), "flashnode-bench-replica-")),
  ]);
  replica = r.child;
  const replicaUrl = `${r.base}rpc/${KEY}`;
  const serving = performance.now();
  while (Number(await rpc(replicaUrl, "eth_blockNumber")) < head) await sleep(20);
  const caughtUp = (performance.now() - started) / 1000;
  const applying = (performance.now() - serving) / 1000;
  console.log(
    `2. replica catch-up of ${head + 1} blocks: ${f(caughtUp)} s from process start (${f((serving - started) / 1000)} s to block 0 and serving); ${f(head / caughtUp)} blocks/s, ${f(gas / caughtUp / 1e6)} Mgas/s overall (${f(head / applying)} blocks/s after serving began); ratio to the sequencer ${f(buildSeconds / caughtUp)}×`,
  );
  await stop(dev);
  return r.base;
}

try {
  let base: string;
  let sourceBase: string;
  let liveUrl: string;
  if (SOURCE === "sequencer") {
    base = await buildAndCatchUp();
    // ---- 3 and 4: the sequencer at its normal cadence, the replica following -------------------
    const live = await startDevChild(
      ["--nats", nats.url, "--block-time", "2s", "--accounts", String(SENDERS), ...common],
      devDir,
    );
    dev = live.child;
    liveUrl = `${live.url}rpc/${KEY}`;
    sourceBase = live.url;
  } else {
    console.log("1., 2.: left out (--source follower)");
    const live = await startDevChild([
      "--block-time",
      "2s",
      "--accounts",
      String(SENDERS),
      ...common,
    ]);
    dev = live.child;
    liveUrl = `${live.url}rpc/${KEY}`;
    const f0 = await startChild([
      "follow",
      "--rpc",
      liveUrl,
      "--flashblocks",
      `${live.url.replace(/^http/, "ws")}flashblocks`,
      "--nats",
      nats.url,
      "--datadir",
      mkdtempSync(join(tmpdir(), "flashnode-bench-follow-")),
    ]);
    follower = f0.child;
    sourceBase = f0.base;
    const r = await startChild([
      "replica",
      "--nats",
      nats.url,
      "--fork-url",
      liveUrl,
      "--datadir",
      mkdtempSync(join(tmpdir(), "flashnode-bench-replica-")),
    ]);
    replica = r.child;
    base = r.base;
    const followerHead = Number(await rpc(`${sourceBase}rpc/${KEY}`, "eth_blockNumber"));
    while (Number(await rpc(`${base}rpc/${KEY}`, "eth_blockNumber")) < followerHead)
      await sleep(20);
    console.log(`   dev ${live.url} → follow --nats ${sourceBase} → replica ${base}`);
  }
  const replicaPid = replica!.pid!;
  await sleep(3_000);

  // The load: RATE transfers a second in 50 ms batches, while a window lasts.
  const pool = Array.from({ length: RATE * (SECONDS * 2 + 12) }, nextTransfer);
  let cursor = 0;
  const perTick = Math.max(1, Math.round(RATE / 20));
  let tick: NodeJS.Timeout | undefined;
  const startLoad = () => {
    tick = setInterval(() => {
      const batch = pool.slice(cursor, cursor + perTick).map((raw, i) => ({
        jsonrpc: "2.0",
        id: i,
        method: "eth_sendRawTransaction",
        params: [raw],
      }));
      cursor += batch.length;
      if (batch.length > 0) void postJson(liveUrl, JSON.stringify(batch)).catch(() => {});
    }, 50);
  };
  const stopLoad = () => clearInterval(tick);

  // 3. Unpinned, as on a machine where nothing else runs: publication → replica's pending view,
  // by the replica's own histogram (from the update's publishedAt: a sequencer's build, a
  // follower's arrival from its upstream, so with a follower it holds the follower's execution
  // too), and from the source's /flashblocks to the replica's as this process sees both.
  const ws = (b: string) => `${b.replace(/^http/, "ws")}flashblocks`;
  const sourceTap = await tapFlashblocks(ws(sourceBase), true);
  const replicaTap = await tapFlashblocks(ws(base), true);
  const label = SOURCE === "sequencer" ? "sequencer" : "follower";
  const idleQuiet = await visibleHistogram(base);
  const idleFrom = performance.now();
  await sleep(SECONDS * 1000);
  console.log(
    `3. flashblock published → visible in the replica's pending view (unpinned, no reads), idle ${SECONDS} s: ${describeDelta(idleQuiet, await visibleHistogram(base))}`,
  );
  console.log(
    `   ${label}'s /flashblocks → replica's /flashblocks, idle: ${describeTaps(sourceTap, replicaTap, idleFrom, performance.now())}`,
  );
  startLoad();
  await sleep(2_000);
  const loadedQuiet = await visibleHistogram(base);
  const loadedFrom = performance.now();
  const sentBefore = cursor;
  const followCpu0 = cpuSeconds(replicaPid);
  await sleep(SECONDS * 1000);
  const followCpu = (cpuSeconds(replicaPid) - followCpu0) / SECONDS;
  const loadedTo = performance.now();
  const sentRate = Math.round((cursor - sentBefore) / SECONDS);
  console.log(
    `   at ~${sentRate} tx/s, ${SECONDS} s: ${describeDelta(loadedQuiet, await visibleHistogram(base))}; following costs the replica ${(followCpu * 100).toFixed(1)}% of a core`,
  );
  stopLoad();
  await sleep(1_000);
  console.log(
    `   ${label}'s /flashblocks → replica's /flashblocks at ~${sentRate} tx/s: ${describeTaps(sourceTap, replicaTap, loadedFrom, loadedTo)}`,
  );
  sourceTap.close();
  replicaTap.close();
  await sleep(3_000);

  // 4. The replica's core to itself: reads idle and while following the load.
  // The bench's own tree first (it holds the replica, dev and nats-server too), then the
  // replica back on CPU 1: the other order once left every process on CPU 0.
  pin(process.pid, "0");
  pin(dev.pid!, "0");
  if (follower !== undefined) pin(follower.pid!, "0");
  if (nats.pid !== undefined) pin(nats.pid, "0");
  pin(replicaPid, "1");
  await sleep(1_000);
  const script = luaScript(
    `/rpc/${KEY}`,
    `'{"jsonrpc":"2.0","id":1,"method":"eth_getStorageAt","params":["${signer.accounts[0]!.address}","0x0","latest"]}'`,
  );
  const readWindow = async (label: string) => {
    const cpu0 = cpuSeconds(replicaPid);
    const h0 = await visibleHistogram(base);
    const r = await runWrk(base, script, SECONDS, 32, { threads: 1, cpus: "0" });
    const h1 = await visibleHistogram(base);
    const cpu = (cpuSeconds(replicaPid) - cpu0) / SECONDS;
    console.log(
      `   ${label}: ${Math.round(r.requestsPerSecond)} req/s, p50 ${f(r.p50Ms)} ms, p99 ${f(r.p99Ms)} ms, errors ${r.errors}, replica CPU ${(cpu * 100).toFixed(0)}% of a core; flashblock → replica pending: ${describeDelta(h0, h1)}`,
    );
    return r.requestsPerSecond;
  };
  console.log(
    `4. replica reads (wrk -t1 -c32 eth_getStorageAt latest; replica pinned to CPU 1; sequencer${follower === undefined ? "" : ", follower"}, nats-server, sender and wrk on CPU 0):`,
  );
  const idle = await readWindow("sequencer idle");
  startLoad();
  await sleep(2_000);
  const sentBusy = cursor;
  const busy = await readWindow(`following ~${RATE} tx/s`);
  const busyRate = Math.round((cursor - sentBusy) / SECONDS);
  stopLoad();
  console.log(`   read throughput following (~${busyRate} tx/s sent) / idle: ${f(busy / idle)}`);
  const latest = Number(await rpc(liveUrl, "eth_blockNumber"));
  const receipts = (await rpc(liveUrl, "eth_getBlockReceipts", [
    `0x${latest.toString(16)}`,
  ])) as unknown[];
  console.log(`   (the last block, ${latest}, carries ${receipts.length} transactions)`);
} finally {
  await stop(replica);
  await stop(follower);
  await stop(dev);
  await nats.stop();
}
