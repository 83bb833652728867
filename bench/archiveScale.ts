// Archive at scale: builds a large synthetic archive through the real block-write path
// (ChainStore.writeBlock, one LMDB transaction per block), then measures generation throughput,
// disk use, historical storage-read latency at head = 10k and at head = 1M over the same slot
// population, and checks historical reads against the generator's log. See docs/benchmarks.md.
// Run: npm run bench:scale [-- --blocks 1000000 --changes-per-block 11 --datadir DIR]
//      npm run bench:scale -- --reuse DIR [--measure-only]
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { ChainStore } from "../src/store/archive.ts";
import { createChainStore } from "../src/store/chainStore.ts";
import { openKvEnv } from "../src/store/lmdb.ts";
import { equalBytes } from "../src/util/hex.ts";
import { scaleReadsChart } from "./lib/benchCharts.ts";
import { writeChart } from "./lib/svgChart.ts";
import {
  diskUsage,
  formatDisk,
  formatLatency,
  type Latency,
  measureReads,
  verify,
} from "./scale/measure.ts";
import { ScaleModel, type ScaleParams, slotAddress, slotKey, valueBytes } from "./scale/model.ts";

const { values } = parseArgs({
  options: {
    blocks: { type: "string", default: "1000000" },
    charts: { type: "string", default: join(import.meta.dirname, "../docs/charts") },
    "changes-per-block": { type: "string" },
    "txs-per-block": { type: "string" },
    seed: { type: "string" },
    /** First measurement point and read population; fixed by the datadir's first run. */
    checkpoint: { type: "string", default: "10000" },
    reads: { type: "string", default: "20000" },
    /** Untimed reads before each timed set: a serving process has mapped the pages it reads. */
    warmup: { type: "string", default: "100000" },
    verify: { type: "string", default: "5000" },
    datadir: { type: "string" },
    reuse: { type: "string" },
    "measure-only": { type: "boolean", default: false },
    /** The store's slot-row cache (src/store/slotRowCache.ts); 0 measures LMDB's B-tree alone. */
    "row-cache-bytes": { type: "string" },
  },
});

/** Kept in the datadir: the generator's parameters and the head=checkpoint figures. */
type Sidecar = {
  params: ScaleParams;
  /** The block of the first measurement; it also fixes the read population (slots changed by then). */
  checkpointBlock: number;
  checkpoint?: { near: Latency; latest: Latency };
};

const BLOCKS = Number(values.blocks);
const READS = Number(values.reads);
const WARMUP = Number(values.warmup);
const VERIFY = Number(values.verify);
/** Historical reads target the last WINDOW blocks below a point: [point − WINDOW, point − 1]. */
const WINDOW = 1_000;
const READ_SEED = 0x5ca1e;

const datadir = values.reuse ?? values.datadir ?? mkdtempSync(join(tmpdir(), "flashnode-scale-"));
mkdirSync(datadir, { recursive: true });
const sidecarPath = join(datadir, "scale.json");
if (values.reuse !== undefined && !existsSync(sidecarPath))
  throw new Error(`--reuse ${datadir}: no scale.json there (not a bench:scale datadir)`);
console.log(`datadir: ${datadir}  (reuse: npm run bench:scale -- --reuse ${datadir})`);

const requested: ScaleParams = {
  changesPerBlock: Number(values["changes-per-block"] ?? 11),
  txsPerBlock: Number(values["txs-per-block"] ?? 2),
  seed: Number(values.seed ?? 1),
};
const sidecar: Sidecar = existsSync(sidecarPath)
  ? (JSON.parse(readFileSync(sidecarPath, "utf8")) as Sidecar)
  : { params: requested, checkpointBlock: Math.min(Number(values.checkpoint), BLOCKS) };
const CHECKPOINT = sidecar.checkpointBlock;
for (const key of ["changes-per-block", "txs-per-block", "seed"] as const) {
  const given = values[key];
  const param =
    key === "seed" ? "seed" : key === "txs-per-block" ? "txsPerBlock" : "changesPerBlock";
  if (given !== undefined && Number(given) !== sidecar.params[param])
    throw new Error(`--${key} ${given}: this datadir was generated with ${sidecar.params[param]}`);
}
const saveSidecar = () => writeFileSync(sidecarPath, `${JSON.stringify(sidecar, null, 2)}\n`);
saveSidecar();
console.log(
  `params: ${sidecar.params.changesPerBlock} storage changes and ${sidecar.params.txsPerBlock} txs per block, seed ${sidecar.params.seed}; ${values["measure-only"] ? "measure only" : `target ${BLOCKS.toLocaleString("en-US")} blocks`}, checkpoint ${CHECKPOINT.toLocaleString("en-US")}`,
);

const rowCacheBytes = values["row-cache-bytes"];
const store = createChainStore(
  openKvEnv(datadir, { noSync: true }),
  rowCacheBytes === undefined ? {} : { slotRowCacheBytes: Number(rowCacheBytes) },
);
const model = new ScaleModel(sidecar.params);
const startHead = store.headNumber();
if (startHead !== undefined) replay(store, startHead);

/** Rebuilds the model up to the stored head and spot-checks it against the store's state. */
function replay(s: ChainStore, head: number): void {
  const t = performance.now();
  for (let n = 0; n <= head; n++) model.advance(n);
  let checked = 0;
  for (const g of model.log.keys()) {
    if (!equalBytes(s.currentStorage(slotAddress(g), slotKey(g)), valueBytes(model.current[g]!)))
      throw new Error(`model replay disagrees with the store at slot #${g}: other parameters?`);
    checked++;
  }
  console.log(
    `resumed at head ${head.toLocaleString("en-US")}: model replayed in ${((performance.now() - t) / 1000).toFixed(1)} s, ${checked} sampled slots match the store`,
  );
}

const yieldToLoop = () => new Promise<void>((ok) => setImmediate(ok));

/** Writes blocks up to and including `last`, one writeBlock each. */
async function generate(last: number): Promise<void> {
  const head = store.headNumber();
  const first = head === undefined ? 0 : head + 1;
  if (first > last) return;
  let parent = first === 0 ? new Uint8Array(32) : store.canonicalHash(first - 1)!;
  const changes0 = model.storageChanges;
  const t0 = performance.now();
  let tWindow = t0;
  let nWindow = first;
  for (let n = first; n <= last; n++) {
    const block = model.block(n, parent);
    store.writeBlock(block);
    parent = block.hash;
    if (n % 1_000 === 0) await yieldToLoop();
    if (n % 50_000 === 0 && n > first) {
      const now = performance.now();
      console.log(
        `  block ${n.toLocaleString("en-US")}: ${(((n - nWindow) * 1000) / (now - tWindow)).toFixed(0)} blocks/s (last window), ${((now - t0) / 1000).toFixed(0)} s elapsed, ${store.env.sizeOnDisk().toLocaleString("en-US")} B`,
      );
      tWindow = now;
      nWindow = n;
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  const blocks = last - first + 1;
  const changes = model.storageChanges - changes0;
  console.log(
    `generated blocks ${first.toLocaleString("en-US")}..${last.toLocaleString("en-US")}: ${blocks.toLocaleString("en-US")} blocks, ${changes.toLocaleString("en-US")} storage changes in ${seconds.toFixed(1)} s = ${(blocks / seconds).toFixed(0)} blocks/s, ${(changes / seconds).toFixed(0)} storage changes/s`,
  );
}

function near(point: number, label: string): Latency {
  return measureReads(store, model, {
    label: `${label} (targets ${(point - WINDOW).toLocaleString("en-US")}..${(point - 1).toLocaleString("en-US")})`,
    from: Math.max(0, point - WINDOW),
    to: point - 1,
    reads: READS,
    populationCap: CHECKPOINT,
    seed: READ_SEED,
    warmup: WARMUP,
  });
}

function latest(head: number): Latency {
  return measureReads(store, model, {
    label: "latest (block = head: plain state, no history seek)",
    from: head,
    to: head,
    reads: READS,
    populationCap: CHECKPOINT,
    seed: READ_SEED,
    warmup: WARMUP,
  });
}

/** Reads, correctness check and disk at the current head; returns the near-head latency. */
function measureHere(): { near: Latency; latest: Latency } {
  const head = store.headNumber() ?? 0;
  console.log(
    `archive: head ${head.toLocaleString("en-US")}, ${model.storageChanges.toLocaleString("en-US")} storage changes, ${model.accountChanges.toLocaleString("en-US")} account changes; storageChanges ${store.env.table("storageChanges").entryCount().toLocaleString("en-US")} entries, storageHistoryIndex ${store.env.table("storageHistoryIndex").entryCount().toLocaleString("en-US")} full shards, slots ${store.env.table("slots").entryCount().toLocaleString("en-US")} rows`,
  );
  console.log(formatDisk(diskUsage(store, datadir), model.storageChanges));
  const v = verify(store, model, VERIFY, head);
  console.log(
    `verify: ${v.pairs - v.mismatches}/${v.pairs} reads match the generator (${VERIFY} historical storage pairs, ${v.history} answered from history; 1,000 current accounts)`,
  );
  if (v.mismatches > 0) process.exitCode = 1;
  const l = latest(head);
  console.log(formatLatency(l));
  const nearHead = near(head, "near head");
  console.log(formatLatency(nearHead));
  if (head > CHECKPOINT + WINDOW) console.log(formatLatency(near(CHECKPOINT, "near checkpoint")));
  return { near: nearHead, latest: l };
}

function ratio(now: { near: Latency; latest: Latency }): void {
  const at = sidecar.checkpoint;
  if (at === undefined) {
    console.log(
      "ratio: no head=checkpoint figures in this datadir (it was not generated by steps)",
    );
    return;
  }
  console.log(
    `ratio p50(head ${now.near.head.toLocaleString("en-US")}) / p50(head ${at.near.head.toLocaleString("en-US")}), reads near head: ${(now.near.p50 / at.near.p50).toFixed(2)} (${now.near.p50.toFixed(1)} / ${at.near.p50.toFixed(1)} µs); p99 ${(now.near.p99 / at.near.p99).toFixed(2)}; latest p50 ${(now.latest.p50 / at.latest.p50).toFixed(2)}`,
  );
  writeChart(join(values.charts, "scale-storage-reads.svg"), scaleReadsChart(at, now));
}

try {
  if (values["measure-only"]) {
    if (startHead === undefined) throw new Error("--measure-only: this datadir has no archive yet");
    ratio(measureHere());
  } else {
    const checkpointNow = (store.headNumber() ?? -1) < CHECKPOINT;
    if (checkpointNow) {
      await generate(CHECKPOINT);
      console.log(`--- head = checkpoint ${CHECKPOINT.toLocaleString("en-US")} ---`);
      sidecar.checkpoint = measureHere();
      saveSidecar();
    }
    if ((store.headNumber() ?? -1) < BLOCKS) {
      await generate(BLOCKS);
      console.log(`--- head = ${BLOCKS.toLocaleString("en-US")} ---`);
      ratio(measureHere());
    } else if (!checkpointNow) {
      console.log(`--- head ${store.headNumber()!.toLocaleString("en-US")} already ≥ --blocks ---`);
      ratio(measureHere());
    }
  }
} finally {
  await store.env.close();
}
