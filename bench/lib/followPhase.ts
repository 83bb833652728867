// One measured phase of `npm run bench:follow`: a load of signed transactions sent to the dev
// sequencer at a fixed rate, and, over a window once the load runs, what the follower did:
// how much later than the sequencer's each flashblock reached the bench from the follower's
// /flashblocks, its own metrics, both heads every 100 ms, and the upstream requests it made.
import { readFileSync } from "node:fs";
import { processTree, runQueueWaitMs } from "../compare/peers.ts";
import { stealMs } from "../compare/wrk.ts";
import type { CountingProxy, ProxyCounts } from "./countingProxy.ts";
import { perThread } from "./cpuTime.ts";
import type { FlashblockTap } from "./flashblockTap.ts";
import { postJson, rpcBody } from "./http.ts";
import { type Scrape, scrape } from "./promScrape.ts";

export type FollowNodes = {
  /** The sequencer's dedicated endpoint, asked directly (not through the proxy). */
  readonly devUrl: string;
  readonly followerUrl: string;
  readonly followerMetrics: string;
  readonly followerPid: number;
  readonly devPid: number;
  readonly proxy: CountingProxy;
  readonly sequencerTap: FlashblockTap;
  readonly followerTap: FlashblockTap;
};

export type PairedFlashblock = {
  readonly key: string;
  readonly index: number;
  readonly transactions: number;
  /** Follower's arrival at the bench − the sequencer's, ms; undefined: never shown. */
  readonly lagMs: number | undefined;
};

export type PhaseResult = {
  readonly seconds: number;
  readonly sent: number;
  readonly sendErrors: number;
  readonly flashblocks: readonly PairedFlashblock[];
  readonly before: Scrape;
  readonly after: Scrape;
  readonly upstream: ProxyCounts;
  readonly heads: { sequencer: [number, number]; follower: [number, number] };
  /** Sequencer head − follower head, sampled every 100 ms. */
  readonly lags: readonly number[];
  /** The sequencer's blocks sealed in the window: gas used and transactions of each. */
  readonly sequencerBlocks: readonly { gas: number; transactions: number }[];
  /** CPU used, in cores (1 = one core busy the whole window). */
  readonly cpu: { follower: number; sequencer: number };
  /**
   * The follower's main thread (RPC, its reader) and its busiest other thread (the follower
   * thread: imports and flashblock replay), in cores.
   */
  readonly followerThreads: { main: number; busiest: number };
  /** Time runnable but waiting for a CPU, ms per second of the window (all threads). */
  readonly waiting: { follower: number; sequencer: number };
  readonly stealMs: number;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const answer = JSON.parse(await postJson(url, rpcBody(method, params))) as {
    result?: T;
    error?: { message: string };
  };
  if (answer.error !== undefined) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result as T;
}

export const blockNumber = async (url: string) => Number(await rpc<string>(url, "eth_blockNumber"));

/** CPU seconds used by a process and its children (all threads). */
export function treeCpuSeconds(pid: number): number {
  let ticks = 0;
  for (const p of processTree(pid)) {
    try {
      const fields = readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1]!.split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited meanwhile
    }
  }
  return ticks / 100;
}

/** CPU seconds used so far by each thread of a process, by thread id. */
export function threadCpuSeconds(pid: number): Map<number, number> {
  return perThread(pid, (dir) => {
    const fields = readFileSync(`${dir}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  });
}

/**
 * How a load is sent: `rate` a second in 20-ms batches (a few transactions at a time, so every
 * 200-ms flashblock gathers about the same number), or `size` at once right after one of the
 * sequencer's flashblocks arrives, at most every `everyMs` (so they can land in one flashblock
 * and the follower has time to finish the last one first).
 */
export type Pace =
  | { readonly kind: "rate"; readonly rate: number }
  | { readonly kind: "bursts"; readonly size: number; readonly everyMs: number };

export function drive(
  nodes: Pick<FollowNodes, "devUrl" | "sequencerTap">,
  load: readonly string[],
  pace: Pace,
) {
  const state = { sent: 0, errors: 0 };
  const send = (upTo: number) => {
    const due = Math.min(load.length, upTo);
    if (due <= state.sent) return;
    const batch = load.slice(state.sent, due).map((raw, i) => ({
      jsonrpc: "2.0",
      id: i,
      method: "eth_sendRawTransaction",
      params: [raw],
    }));
    state.sent = due;
    postJson(nodes.devUrl, JSON.stringify(batch)).then(
      (text) => {
        const answers = JSON.parse(text) as { error?: unknown }[];
        state.errors += Array.isArray(answers)
          ? answers.filter((a) => a.error !== undefined).length
          : batch.length;
      },
      () => {
        state.errors += batch.length;
      },
    );
  };
  const started = performance.now();
  if (pace.kind === "rate") {
    const timer = setInterval(
      () => send(Math.floor(((performance.now() - started) * pace.rate) / 1000)),
      20,
    );
    return { state, stop: () => clearInterval(timer) };
  }
  // Every everyMs a burst is due; it leaves with the next flashblock from the sequencer, or
  // after 250 ms if none comes (an idle dev chain streams only its blocks' index 0).
  let fallback: NodeJS.Timeout | undefined;
  const fire = () => {
    clearTimeout(fallback);
    fallback = undefined;
    send(state.sent + pace.size);
  };
  const timer = setInterval(() => {
    fallback ??= setTimeout(fire, 250);
  }, pace.everyMs);
  const off = nodes.sequencerTap.onArrival(() => {
    if (fallback !== undefined) fire();
  });
  return {
    state,
    stop: () => {
      clearInterval(timer);
      clearTimeout(fallback);
      off();
    },
  };
}

export async function runPhase(
  nodes: FollowNodes,
  load: readonly string[],
  opts: { pace: Pace; leadSeconds: number; seconds: number },
): Promise<PhaseResult> {
  const driver = drive(nodes, load, opts.pace);
  try {
    await sleep(opts.leadSeconds * 1000);
    const before = await scrape(nodes.followerMetrics);
    nodes.proxy.reset();
    const [seq0, fol0] = await Promise.all([
      blockNumber(nodes.devUrl),
      blockNumber(nodes.followerUrl),
    ]);
    const cpu0 = [treeCpuSeconds(nodes.followerPid), treeCpuSeconds(nodes.devPid)];
    const threads0 = threadCpuSeconds(nodes.followerPid);
    const wait0 = [runQueueWaitMs(nodes.followerPid), runQueueWaitMs(nodes.devPid)];
    const steal0 = stealMs();
    const sent0 = driver.state.sent;
    const errors0 = driver.state.errors;
    const t0 = performance.now();
    const lags: number[] = [];
    let sampling = false;
    const sampler = setInterval(() => {
      if (sampling) return; // a slow answer: skip a sample rather than pile them up
      sampling = true;
      void Promise.all([blockNumber(nodes.devUrl), blockNumber(nodes.followerUrl)])
        .then(([s, f]) => lags.push(s - f))
        .finally(() => {
          sampling = false;
        });
    }, 100);
    await sleep(opts.seconds * 1000);
    clearInterval(sampler);
    const t1 = performance.now();
    const after = await scrape(nodes.followerMetrics);
    const upstream = nodes.proxy.counts();
    nodes.proxy.reset();
    const cpu1 = [treeCpuSeconds(nodes.followerPid), treeCpuSeconds(nodes.devPid)];
    const threads1 = threadCpuSeconds(nodes.followerPid);
    const wait1 = [runQueueWaitMs(nodes.followerPid), runQueueWaitMs(nodes.devPid)];
    const steal = stealMs() - steal0;
    const [seq1, fol1] = await Promise.all([
      blockNumber(nodes.devUrl),
      blockNumber(nodes.followerUrl),
    ]);
    const sent = driver.state.sent - sent0;
    driver.stop();
    // The window's last flashblocks reach the follower's stream a little after the window.
    await sleep(2_000);
    const flashblocks: PairedFlashblock[] = [];
    for (const [key, s] of nodes.sequencerTap.arrivals) {
      if (s.at < t0 || s.at > t1) continue;
      const f = nodes.followerTap.arrivals.get(key);
      flashblocks.push({
        key,
        index: Number(key.split("/")[1]),
        transactions: s.transactions,
        lagMs: f === undefined ? undefined : f.at - s.at,
      });
    }
    const sequencerBlocks: { gas: number; transactions: number }[] = [];
    for (let n = seq0 + 1; n <= seq1; n++) {
      const b = await rpc<{ gasUsed: string; transactions: string[] }>(
        nodes.devUrl,
        "eth_getBlockByNumber",
        [`0x${n.toString(16)}`, false],
      );
      sequencerBlocks.push({ gas: Number(b.gasUsed), transactions: b.transactions.length });
    }
    const seconds = (t1 - t0) / 1000;
    return {
      seconds,
      sent,
      sendErrors: driver.state.errors - errors0,
      flashblocks,
      before,
      after,
      upstream,
      heads: { sequencer: [seq0, seq1], follower: [fol0, fol1] },
      lags,
      sequencerBlocks,
      cpu: {
        follower: (cpu1[0]! - cpu0[0]!) / seconds,
        sequencer: (cpu1[1]! - cpu0[1]!) / seconds,
      },
      followerThreads: threadShares(threads0, threads1, nodes.followerPid, seconds),
      waiting: {
        follower: (wait1[0]! - wait0[0]!) / seconds,
        sequencer: (wait1[1]! - wait0[1]!) / seconds,
      },
      stealMs: steal,
    };
  } finally {
    driver.stop();
  }
}

function threadShares(
  before: Map<number, number>,
  after: Map<number, number>,
  mainTid: number,
  seconds: number,
): { main: number; busiest: number } {
  let main = 0;
  let busiest = 0;
  for (const [tid, cpu] of after) {
    const used = (cpu - (before.get(tid) ?? 0)) / seconds;
    if (tid === mainTid) main = used;
    else busiest = Math.max(busiest, used);
  }
  return { main, busiest };
}
