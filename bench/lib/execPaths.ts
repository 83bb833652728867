// One measurement of each execution path of `npm run bench:exec`, through what every commit
// has (JSON-RPC, the CLI, /proc), so the same code measures the commit before a change:
//   sequencer  a load sent in bulk to `flashnode dev` (a long block time): its sequencer thread's
//              CPU until the pending block holds it all, and until `evm_mine` has sealed it;
//   follower   the same load sent to the dev chain a `flashnode follow` follows: the follower
//              thread's CPU until its pending block holds it all (the flashblocks replayed), and
//              until it has the sealed block;
//   anvil      the same bytes sent to anvil (automine off), then one `evm_mine`: its CPU during it;
//   eth_call   a warm call's latency; automine: send → receipt; burst: 600 sent at once.
import type { Hex } from "viem";
import { runQueueWaitMs } from "../compare/peers.ts";
import {
  busiestWorker,
  sampleThreads,
  type ThreadSample,
  threadSeconds,
  treeRunNs,
} from "./cpuTime.ts";
import { rpc } from "./followPhase.ts";
import { postJson, rpcBody } from "./http.ts";
import { blockReceipts, type Receipt, receiptsOf, sendRaw, txHash } from "./txSigner.ts";

export type Sample = {
  readonly txs: number;
  readonly gas: number;
  /** CPU seconds of the execution (the measured thread, or anvil's process). */
  readonly cpu: number;
  readonly wall: number;
  /** CPU seconds of the whole measured process in the same window. */
  readonly processCpu: number;
  /** ms the measured process's threads waited for a CPU in the window (a busy machine). */
  readonly runQueueMs: number;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `read` every `everyMs` until `done`; throws after `timeoutMs` (a stuck node: generous, as
 * a load executed at a few percent of a core on a machine shared with others takes minutes).
 */
async function until<T>(
  what: string,
  read: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs = 900_000,
  everyMs = 5,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (performance.now() > deadline)
      throw new Error(`${what}: not within ${timeoutMs} ms (last: ${JSON.stringify(v)})`);
    await sleep(everyMs);
  }
}

const pendingCount = async (url: string) =>
  Number(await rpc<string>(url, "eth_getBlockTransactionCountByNumber", ["pending"]));
const pendingBlock = async (url: string) => {
  const b = await rpc<{ number: string; transactions: string[] }>(url, "eth_getBlockByNumber", [
    "pending",
    false,
  ]);
  return { number: Number(b.number), count: b.transactions.length };
};
const head = async (url: string) => Number(await rpc<string>(url, "eth_blockNumber"));

/** The gas of `raws` in block `block`, each checked present and successful. */
async function gasOf(url: string, block: number | string, raws: readonly Hex[]): Promise<number> {
  const receipts = await blockReceipts(url, block);
  return gasOfReceipts(receipts, raws);
}

function gasOfReceipts(receipts: readonly (Receipt | null)[], raws: readonly Hex[]): number {
  const byHash = new Map<string, Receipt>();
  for (const r of receipts) if (r !== null) byHash.set(r.transactionHash, r);
  let gas = 0;
  for (const raw of raws) {
    const r = byHash.get(txHash(raw));
    if (r === undefined) throw new Error(`${txHash(raw)} is not in the block`);
    if (r.status !== "0x1") throw new Error(`${txHash(raw)} failed`);
    gas += Number(r.gasUsed);
  }
  return gas;
}

export type TwoStage = { readonly flashblocks: Sample; readonly sealed: Sample };

/** One moment of a measured process: its threads' CPU, its run-queue wait, the clock. */
type Mark = { readonly threads: ThreadSample; readonly waitMs: number; readonly at: number };

function mark(pid: number): Mark {
  const threads = sampleThreads(pid);
  const waitMs = runQueueWaitMs(pid);
  return { threads, waitMs, at: performance.now() };
}

/**
 * Both stages from the marks at the send (`m0`), at the pending block (`m1`) and at the sealed
 * block (`m2`): the busiest worker thread over the whole is the one measured in both.
 */
function twoStage(txs: number, gas: number, m0: Mark, m1: Mark, m2: Mark): TwoStage {
  const whole = busiestWorker(m0.threads, m2.threads);
  return {
    flashblocks: {
      txs,
      gas,
      cpu: threadSeconds(m0.threads, m1.threads, whole.tid),
      wall: (m1.at - m0.at) / 1000,
      processCpu: busiestWorker(m0.threads, m1.threads).allSeconds,
      runQueueMs: m1.waitMs - m0.waitMs,
    },
    sealed: {
      txs,
      gas,
      cpu: whole.seconds,
      wall: (m2.at - m0.at) / 1000,
      processCpu: whole.allSeconds,
      runQueueMs: m2.waitMs - m0.waitMs,
    },
  };
}

/**
 * The sequencer path: `raws` sent to a dev node that seals only on evm_mine; its sequencer
 * thread (the busiest worker thread) until the pending block holds them (`flashblocks`) and
 * until the block is sealed (`sealed`, the whole).
 */
export async function measureSequencer(
  node: { url: string; pid: number },
  raws: readonly Hex[],
): Promise<TwoStage> {
  const base = await pendingCount(node.url);
  const m0 = mark(node.pid);
  await sendRaw(node.url, raws);
  await until(
    "the sequencer's pending block",
    () => pendingCount(node.url),
    (n) => n >= base + raws.length,
  );
  const m1 = mark(node.pid);
  await rpc(node.url, "evm_mine");
  const m2 = mark(node.pid);
  return twoStage(raws.length, await gasOf(node.url, "latest", raws), m0, m1, m2);
}

/**
 * The follower path: `raws` sent to `upstream` (a dev node sealing on evm_mine) that `follower`
 * follows; the follower thread (its busiest worker thread) until its pending block holds them
 * (the flashblocks replayed) and until it has the sealed block.
 */
export async function measureFollower(
  upstream: { url: string },
  follower: { url: string; pid: number },
  raws: readonly Hex[],
): Promise<TwoStage> {
  // The block being built upstream (opened at the last seal) and what it holds already (an
  // OP-stack chain's L1-info deposit): the follower's pending block is that one once it holds
  // that many more. (The follower's own pending may still be the block before, just after a seal.)
  const open = await pendingBlock(upstream.url);
  const m0 = mark(follower.pid);
  await sendRaw(upstream.url, raws);
  await until(
    "the follower's pending block",
    () => pendingBlock(follower.url),
    (b) => b.number === open.number && b.count >= open.count + raws.length,
  );
  const m1 = mark(follower.pid);
  await rpc(upstream.url, "evm_mine");
  const target = await head(upstream.url);
  await until(
    "the follower's head",
    () => head(follower.url),
    (n) => n >= target,
  );
  const m2 = mark(follower.pid);
  return twoStage(raws.length, await gasOf(upstream.url, target, raws), m0, m1, m2);
}

/** anvil (automine off): `raws` sent, then one `evm_mine`, its process's CPU during it. */
export async function measureAnvil(
  anvil: { url: string; pid: number },
  raws: readonly Hex[],
): Promise<Sample> {
  await sendRaw(anvil.url, raws);
  const cpu0 = treeRunNs(anvil.pid);
  const wait0 = runQueueWaitMs(anvil.pid);
  const t0 = performance.now();
  await rpc(anvil.url, "evm_mine");
  const t1 = performance.now();
  const cpu = (treeRunNs(anvil.pid) - cpu0) / 1e9;
  const runQueueMs = runQueueWaitMs(anvil.pid) - wait0;
  const gas = await gasOf(anvil.url, "latest", raws);
  return { txs: raws.length, gas, cpu, wall: (t1 - t0) / 1000, processCpu: cpu, runQueueMs };
}

/** Latencies (ms) of `count` warm `eth_call`s of `call` at latest, after `warm` untimed ones. */
export async function callLatencies(
  url: string,
  call: { to: Hex; data: Hex },
  count: number,
  warm = 5,
): Promise<number[]> {
  const body = rpcBody("eth_call", [call, "latest"]);
  const out: number[] = [];
  for (let i = 0; i < warm + count; i++) {
    const t0 = performance.now();
    const answer = JSON.parse(await postJson(url, body)) as { error?: { message: string } };
    const ms = performance.now() - t0;
    if (answer.error !== undefined) throw new Error(`eth_call: ${answer.error.message}`);
    if (i >= warm) out.push(ms);
  }
  return out;
}

/** Automine: each of `raws` sent alone and its receipt polled (every 1 ms); ms each. */
/** One automine round trip: until the send is answered, until its receipt is seen. */
export type RoundTrip = {
  readonly answeredMs: number;
  readonly receiptMs: number;
  /** Whether the first receipt request after the answer found it (read-your-writes). */
  readonly seenAtOnce: boolean;
};

export async function sendToReceipt(url: string, raws: readonly Hex[]): Promise<RoundTrip[]> {
  const out: RoundTrip[] = [];
  for (const raw of raws) {
    const t0 = performance.now();
    await sendRaw(url, [raw]);
    const answeredMs = performance.now() - t0;
    let polls = 0;
    const [r] = await until(
      "a receipt",
      () => {
        polls++;
        return receiptsOf(url, [txHash(raw)]);
      },
      (rs) => rs[0] !== null,
      60_000,
      1,
    );
    out.push({ answeredMs, receiptMs: performance.now() - t0, seenAtOnce: polls === 1 });
    if (r!.status !== "0x1") throw new Error(`${txHash(raw)} failed`);
  }
  return out;
}

export type Burst = {
  /** Seconds from the first send until every send was answered. */
  readonly acceptSeconds: number;
  readonly execution: Sample;
};

/**
 * Sends each of `raws` as its own request, all at once (as many in flight as the agent allows);
 * throws if any is refused (a burst that is not whole would leave the wait for it hanging).
 */
async function sendAllAtOnce(url: string, raws: readonly Hex[]): Promise<void> {
  const answers = await Promise.all(
    raws.map((raw) => postJson(url, rpcBody("eth_sendRawTransaction", [raw]))),
  );
  const refused = answers
    .map((a) => (JSON.parse(a) as { error?: { message: string } }).error)
    .filter((e) => e !== undefined);
  if (refused.length > 0)
    throw new Error(`${refused.length} of the burst refused, the first: ${refused[0]!.message}`);
}

/**
 * The burst on flashnode dev (blocks on its own clock): `raws` sent at once; the process's CPU
 * (every thread) and the wall time from the first send until each has its receipt, polled on
 * `watch` (each sender's last: the others come before it) so the polling costs the node little.
 */
export async function measureBurstDev(
  node: { url: string; pid: number },
  raws: readonly Hex[],
  watch: readonly Hex[],
): Promise<Burst> {
  const cpu0 = treeRunNs(node.pid);
  const wait0 = runQueueWaitMs(node.pid);
  const t0 = performance.now();
  await sendAllAtOnce(node.url, raws);
  const acceptSeconds = (performance.now() - t0) / 1000;
  await until(
    "the burst's receipts",
    () => receiptsOf(node.url, watch.map(txHash)),
    (rs) => rs.every((r) => r !== null),
    300_000,
    10,
  );
  const wall = (performance.now() - t0) / 1000;
  const cpu = (treeRunNs(node.pid) - cpu0) / 1e9;
  const runQueueMs = runQueueWaitMs(node.pid) - wait0;
  const receipts = await receiptsOf(node.url, raws.map(txHash));
  return {
    acceptSeconds,
    execution: {
      txs: raws.length,
      gas: gasOfReceipts(receipts, raws),
      cpu,
      wall,
      processCpu: cpu,
      runQueueMs,
    },
  };
}

/** The burst on anvil: `raws` sent at once, then one evm_mine (timed as measureAnvil). */
export async function measureBurstAnvil(
  anvil: { url: string; pid: number },
  raws: readonly Hex[],
): Promise<Burst> {
  const t0 = performance.now();
  await sendAllAtOnce(anvil.url, raws);
  const acceptSeconds = (performance.now() - t0) / 1000;
  const execution = await measureAnvil(anvil, []);
  const receipts = await receiptsOf(anvil.url, raws.map(txHash));
  return {
    acceptSeconds,
    execution: { ...execution, txs: raws.length, gas: gasOfReceipts(receipts, raws) },
  };
}
