import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import WebSocket from "ws";
import { percentile } from "../src/pending/flashblockStats.ts";
import { pacedCheckingScript, runWrk } from "./compare/wrk.ts";
import { startDevChild, transferSigner } from "./lib/devChain.ts";
import { benchAgent, postJson, rpcBody } from "./lib/http.ts";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    "tx-rate": { type: "string", default: "100" },
  },
});
const DURATION_MS = Number(values.minutes) * 60_000;
const TX_RATE = Number(values["tx-rate"]);
const INTERVAL_MS = 200;
const KEY = "soak-key-0001";
const SENDERS = 10;

const { child, url: base } = await startDevChild([
  "--api-key",
  KEY,
  "--rate-limit",
  "0",
  "--log-level",
  "warn",
  "--accounts",
  String(SENDERS),
]);
const url = `${base}rpc/${KEY}`;
/** Resident memory in MiB: anonymous (heaps, stacks: what can leak) and file-backed (LMDB's map). */
function memory(): { anon: number; file: number } {
  const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { anon: kib("RssAnon") / 1024, file: kib("RssFile") / 1024 };
}
const signer = await transferSigner(SENDERS);
const accounts = signer.accounts;
let errors = 0;
const errorSamples: string[] = [];
const fail = (what: string) => {
  errors++;
  if (errorSamples.length < 10) errorSamples.push(what);
};

// The read load runs in wrk (a Node client on the same two cores cannot reach half of the
// capacity): a fixed cycle of latest, pending and historical storage reads and, every tenth,
// the receipts of the latest block, every answer checked.
const readBodies: string[] = [];
for (let i = 0; i < 30; i++) {
  const tag = ["latest", "pending", "0x1"][i % 3]!;
  readBodies.push(
    i % 10 === 9
      ? rpcBody("eth_getBlockReceipts", ["latest"])
      : rpcBody("eth_getStorageAt", [accounts[i % SENDERS]!.address, "0x0", tag]),
  );
}
const OK_PREFIX = '{"jsonrpc":"2.0","id":1,"result"';
const READ_DELAY_MS = 4;
const readScript = (delayMs: number) =>
  pacedCheckingScript(`/rpc/${KEY}`, readBodies, delayMs, OK_PREFIX);

const ws = new WebSocket(`${base.replace(/^http/, "ws")}flashblocks`);
const arrivals: number[] = [];
ws.on("message", () => arrivals.push(performance.now()));
const samples: Array<{ t: number; rssMiB: number; fileMiB: number; lagS: number }> = [];
const nonces = new Array(SENDERS).fill(0);
let writes = 0;
let writing = true;

async function writer(): Promise<void> {
  let due = performance.now();
  for (let i = 0; writing; i++) {
    const s = i % SENDERS;
    const raw = signer.transfer(s, nonces[s]!++);
    const answer = await postJson(url, rpcBody("eth_sendRawTransaction", [raw]));
    if (!answer.includes('"result"')) fail(`send: ${answer.slice(0, 200)}`);
    writes++;
    due += 1000 / TX_RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
}

// Capacity of the same read mix, under the write load (blocks full of receipts): unpaced wrk for
// 3 s. The read load is half of it: wrk's delay() paces each connection, and a 3 s trial sets
// the number of connections that reaches the rate.
const writerDone = writer();
await new Promise((r) => setTimeout(r, 5000));
const probe = await runWrk(base, readScript(0), 3, 16);
const readRate = Math.floor(probe.requestsPerSecond / 2);
const firstGuess = Math.max(1, Math.round((readRate * (READ_DELAY_MS + 0.5)) / 1000));
const trial = await runWrk(base, readScript(READ_DELAY_MS), 3, firstGuess);
const readConnections = Math.max(
  1,
  Math.round((firstGuess * readRate) / Math.max(1, trial.requestsPerSecond)),
);
console.log(
  `capacity probe (read mix, under writes): ${probe.requestsPerSecond.toFixed(0)} req/s → read load ${readRate} req/s (${readConnections} connections, ${READ_DELAY_MS} ms apart); write load ${TX_RATE} tx/s; ${values.minutes} min`,
);
const started = performance.now();
const readLoad = runWrk(base, readScript(READ_DELAY_MS), DURATION_MS / 1000, readConnections);

const monitor = setInterval(async () => {
  const metrics = await (await fetch(`${base}metrics`)).text();
  const lag = Number(/^flashnode_flashblock_age_seconds (\S+)/m.exec(metrics)?.[1] ?? Number.NaN);
  const m = memory();
  samples.push({
    t: (performance.now() - started) / 1000,
    rssMiB: m.anon,
    fileMiB: m.file,
    lagS: lag,
  });
  const last = samples.at(-1)!;
  if (samples.length % 6 === 0)
    console.log(
      `${last.t.toFixed(0)} s: RSS anon ${last.rssMiB.toFixed(0)} MiB + file ${last.fileMiB.toFixed(0)} MiB, pending lag ${(last.lagS * 1000).toFixed(0)} ms, writes ${writes}, errors ${errors}`,
    );
}, 5000);

const reads = await readLoad;
for (const r of [probe, trial, reads]) {
  errors += r.errors + r.badAnswers;
  if (!r.checked) fail(`read load: the wrk script did not run: ${r.stderr.slice(0, 400)}`);
  else if (r.stderr !== "") errorSamples.push(`read: ${r.stderr.slice(0, 400)}`);
}
writing = false;
await writerDone;
clearInterval(monitor);
ws.close();
child.kill("SIGTERM");
benchAgent.destroy();

// Warm-up: the first fifth (caches fill: EVM state LRU, receipts JSON, LMDB pages). One sample
// lands anywhere on the garbage collector's sawtooth (±20% here), so growth compares the median
// of the fifth after warm-up with the median of the last fifth.
const fifth = Math.max(1, Math.floor(samples.length / 5));
const medianRss = (from: number, to: number) =>
  percentile(
    samples.slice(from, to).map((s) => s.rssMiB),
    50,
  );
const warm = { t: samples[fifth]!.t, rssMiB: medianRss(fifth, 2 * fifth) };
const end = { rssMiB: medianRss(samples.length - fifth, samples.length) };
const intervals = arrivals
  .slice(1)
  .map((t, i) => t - arrivals[i]!)
  .slice(10);
const growth = (end.rssMiB - warm.rssMiB) / warm.rssMiB;
const lags = samples.map((s) => s.lagS * 1000).filter(Number.isFinite);
const p99 = percentile(intervals, 99);
console.log("");
console.log(
  `duration ${((performance.now() - started) / 1000).toFixed(0)} s; requests served: ${reads.requests} reads (${reads.requestsPerSecond.toFixed(0)}/s, target ${readRate}/s, over ${readConnections} connections; p50 ${reads.p50Ms.toFixed(2)} ms, p99 ${reads.p99Ms.toFixed(2)} ms) + ${writes} transactions (${TX_RATE}/s); errors ${errors} (reads: ${reads.errors} transport/HTTP, ${reads.badAnswers} not a result)`,
);
console.log(
  `RSS (anonymous: heaps and stacks of all threads): start ${samples[0]!.rssMiB.toFixed(0)} MiB, last sample ${samples.at(-1)!.rssMiB.toFixed(0)} MiB, max ${Math.max(...samples.map((s) => s.rssMiB)).toFixed(0)} MiB; median after warm-up (from ${warm.t.toFixed(0)} s) ${warm.rssMiB.toFixed(0)} MiB, median of the last fifth ${end.rssMiB.toFixed(0)} MiB → growth past warm-up ${(growth * 100).toFixed(1)}%`,
);
console.log(
  `RSS (file-backed: LMDB pages mapped, grows with the archive): start ${samples[0]!.fileMiB.toFixed(0)} MiB, end ${samples.at(-1)!.fileMiB.toFixed(0)} MiB`,
);
console.log(
  `flashblock cadence (${intervals.length} intervals): p50 ${percentile(intervals, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...intervals).toFixed(1)} ms`,
);
console.log(
  `pending lag (age of the newest flashblock at 5 s samples): p50 ${percentile(lags, 50).toFixed(0)} ms, max ${Math.max(...lags).toFixed(0)} ms`,
);
for (const e of errorSamples) console.log(`error: ${e}`);
const failures = [
  growth > 0.1 ? `memory grew ${(growth * 100).toFixed(1)}% past warm-up` : undefined,
  errors > 0 ? `${errors} errors` : undefined,
  p99 > 1.5 * INTERVAL_MS
    ? `cadence p99 ${p99.toFixed(0)} ms > ${1.5 * INTERVAL_MS} ms`
    : undefined,
].filter((f) => f !== undefined);
console.log(failures.length === 0 ? "SOAK: PASS" : `SOAK: FAIL (${failures.join("; ")})`);
process.exit(failures.length === 0 ? 0 : 1);
