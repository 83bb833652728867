// Issue-3 figures for `flashnode dev` at the default 200 ms cadence:
//  1. send → visible in pending, p50/p99 (in-process node, polled every 2 ms), beside the node's own
//     figure (flashnode_getTransactionTimes: intake → flashblock published);
//  2. flashblock built → visible over RPC, p50/p99 (the node's own timings);
//  3. the highest transaction rate the sequencer sustains while keeping its cadence
//     (node in its own process; cadence seen on the /flashblocks stream);
//  4. eth_getStorageAt p99 while the sequencer is busy vs idle.
// Run: npm run bench:flashblocks   (bounded: about two minutes)
import { join } from "node:path";
import { parseArgs } from "node:util";
import WebSocket from "ws";
import { percentile } from "../src/pending/flashblockStats.ts";
import { startTestDevNode } from "../test/utils/devChain.ts";
import { cadenceChart, preconfirmLatencyChart } from "./lib/benchCharts.ts";
import { startDevChild, transferSigner } from "./lib/devChain.ts";
import { benchAgent, postJson, rpcBody } from "./lib/http.ts";
import { writeChart } from "./lib/svgChart.ts";

const { values } = parseArgs({
  options: {
    rates: { type: "string", default: "50,100,200,400,800" },
    seconds: { type: "string", default: "5" },
    charts: { type: "string", default: join(import.meta.dirname, "../docs/charts") },
  },
});
const RATES = values.rates.split(",").map(Number);
const STEP_SECONDS = Number(values.seconds);
const SENDERS = 20;
const f = (n: number) => n.toFixed(n < 10 ? 2 : 1);

const signer = await transferSigner(SENDERS);
const accounts = signer.accounts;
function signTransfers(count: number, nonces: number[]): string[] {
  return Array.from({ length: count }, (_, i) =>
    signer.transfer(i % SENDERS, nonces[i % SENDERS]!++),
  );
}

// ---- 1 and 2: in-process node, light load --------------------------------------------------
{
  const node = await startTestDevNode({ accounts: SENDERS });
  await new Promise((r) => setTimeout(r, 2000));
  const nonces = new Array(SENDERS).fill(0);
  const raws = signTransfers(150, nonces);
  const latencies: number[] = [];
  const hashes: string[] = [];
  for (const raw of raws) {
    const t0 = performance.now();
    const hash = JSON.parse(await postJson(node.url, rpcBody("eth_sendRawTransaction", [raw])))
      .result as string;
    hashes.push(hash);
    for (;;) {
      const r = JSON.parse(
        await postJson(node.url, rpcBody("eth_getTransactionReceipt", [hash])),
      ).result;
      if (r !== null) break;
      await new Promise((res) => setTimeout(res, 2));
    }
    latencies.push(performance.now() - t0);
    // A random phase against the 200 ms grid, so sends do not lock onto flashblock boundaries.
    await new Promise((res) => setTimeout(res, Math.random() * 400));
  }
  // An in-process node serves from this process: its follower's stats are here.
  const stats = node.stats;
  if (stats === undefined) throw new Error("the bench's node serves from other processes");
  const t = stats.snapshot();
  console.log(
    `1. send → visible in pending (${latencies.length} txs, 200 ms flashblocks): p50 ${f(percentile(latencies, 50))} ms, p99 ${f(percentile(latencies, 99))} ms, max ${f(Math.max(...latencies))} ms`,
  );
  // The node's own figure for the same transactions: its intake → their flashblock's publication.
  const own: number[] = [];
  for (const hash of hashes) {
    const times = JSON.parse(
      await postJson(node.url, rpcBody("flashnode_getTransactionTimes", [hash])),
    ).result as { preconfirmLatencyMs: number | null } | null;
    if (times?.preconfirmLatencyMs != null) own.push(times.preconfirmLatencyMs);
  }
  console.log(
    `1. the node's own figure, intake → flashblock published (${own.length} txs): p50 ${f(percentile(own, 50))} ms, p99 ${f(percentile(own, 99))} ms, max ${f(Math.max(...own))} ms`,
  );
  writeChart(
    join(values.charts, "flashblocks-preconfirm-latency.svg"),
    preconfirmLatencyChart(
      [
        { name: "client: send → receipt visible", samples: latencies },
        { name: "node: intake → flashblock published", samples: own },
      ],
      `${latencies.length} transfers at a random phase against the 200 ms grid; the client polls its receipt every 2 ms`,
    ),
  );
  console.log(
    `2. flashblock built → visible over RPC (${t.visibleLagMs.length} flashblocks): p50 ${f(percentile(t.visibleLagMs, 50))} ms, p99 ${f(percentile(t.visibleLagMs, 99))} ms; build time p50 ${f(percentile(t.buildMs, 50))} ms, p99 ${f(percentile(t.buildMs, 99))} ms`,
  );
  await node.close();
}

// ---- 3 and 4: node in its own process ------------------------------------------------------
const { child, url } = await startDevChild([
  "--accounts",
  String(SENDERS),
  "--gas-limit",
  "200000000",
  "--rate-limit",
  "0",
]);
try {
  const contract = accounts[0]!.address;
  async function storageLatency(ms: number): Promise<number[]> {
    const samples: number[] = [];
    const end = performance.now() + ms;
    while (performance.now() < end) {
      const t0 = performance.now();
      await postJson(url, rpcBody("eth_getStorageAt", [contract, "0x0", "pending"]));
      samples.push(performance.now() - t0);
    }
    return samples;
  }
  await storageLatency(1000);
  const idle = await storageLatency(3000);
  console.log(
    `4a. eth_getStorageAt, sequencer idle: p50 ${f(percentile(idle, 50))} ms, p99 ${f(percentile(idle, 99))} ms (${idle.length} sequential requests)`,
  );

  const ws = new WebSocket(`${url.replace(/^http/, "ws")}flashblocks`);
  const arrivals: Array<{ at: number; txs: number }> = [];
  ws.on("message", (d) =>
    arrivals.push({
      at: performance.now(),
      txs: (JSON.parse(d.toString()) as { diff: { transactions: unknown[] } }).diff.transactions
        .length,
    }),
  );
  await new Promise((r) => ws.once("open", r));
  const nonces = new Array(SENDERS).fill(0);
  let best: number | undefined;
  let busy: number[] = [];
  const cadence: Array<{ rate: number; points: [number, number][] }> = [];
  for (const rate of RATES) {
    const raws = signTransfers(rate * STEP_SECONDS, nonces);
    const from = arrivals.length;
    const start = performance.now();
    const probe = storageLatency(STEP_SECONDS * 1000);
    let sent = 0;
    const sends: Promise<string>[] = [];
    while (sent < raws.length) {
      const due = Math.floor(((performance.now() - start) / 1000) * rate);
      while (sent < Math.min(due, raws.length))
        sends.push(postJson(url, rpcBody("eth_sendRawTransaction", [raws[sent++]!])));
      await new Promise((r) => setTimeout(r, 5));
    }
    const answers = await Promise.all(sends);
    const probeSamples = await probe;
    await new Promise((r) => setTimeout(r, 1000));
    const window = arrivals.slice(from);
    const intervals = window.slice(1).map((a, i) => a.at - window[i]!.at);
    cadence.push({
      rate,
      points: window
        .slice(1)
        .map((a, i) => [(a.at - start) / 1000, intervals[i]!] as [number, number]),
    });
    const included = window.reduce((n, a) => n + a.txs, 0);
    const rejected = answers.filter((a) => a.includes('"error"')).length;
    const p99 = percentile(intervals, 99);
    const kept = p99 <= 300 && included >= raws.length - rejected && rejected === 0;
    console.log(
      `3. ${rate} tx/s offered for ${STEP_SECONDS} s: ${included}/${raws.length} pre-confirmed, ${rejected} refused; ` +
        `flashblock interval p50 ${f(percentile(intervals, 50))} ms, p99 ${f(p99)} ms, max ${f(Math.max(...intervals))} ms; ` +
        `getStorageAt p99 ${f(percentile(probeSamples, 99))} ms → ${kept ? "cadence kept" : "cadence LOST"}`,
    );
    if (kept) {
      best = rate;
      busy = probeSamples;
    } else break;
  }
  ws.close();
  writeChart(join(values.charts, "flashblocks-cadence.svg"), cadenceChart(cadence));
  console.log(
    `3. highest rate with the 200 ms cadence kept (interval p99 ≤ 300 ms, all included): ${best ?? "none"} tx/s`,
  );
  if (busy.length > 0)
    console.log(
      `4b. eth_getStorageAt, sequencer busy at ${best} tx/s: p50 ${f(percentile(busy, 50))} ms, p99 ${f(percentile(busy, 99))} ms (${busy.length} requests)`,
    );
} finally {
  child.kill("SIGTERM");
  benchAgent.destroy();
}
