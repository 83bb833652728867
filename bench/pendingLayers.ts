// The pre-confirmed block, before and after it was layered, in one run: the copying block (every
// map copied per flashblock; test/utils/copyingPending.ts, the code as it was) against the
// layered one (src/pending). Blocks of a flashblock 0 and F flashblocks of K transactions
// (bench/lib/pendingWorkload.ts), measured in CPU time (process.cpuUsage: every thread of this
// process, GC included), each figure the median of REPEATS runs (min beside it):
//   apply      one snapshot per flashblock, in one thread;
//   process    what one process spends per flashblock: the RPC thread's snapshot, the crossing to
//              its call worker (structuredClone standing in for postMessage) and the worker's own;
//   node       a node with N reader processes: the primary's snapshot, the updates serialized for
//              the readers (node:v8, as cluster IPC does) and each reader's process cost;
//   read       one state read through the final snapshot (parent state: a constant);
// then GC during `apply` (count, ms) and bytes allocated per flashblock (a child process whose
// young generation is large enough that no GC runs, so heap growth is allocation).
// Run: node --import tsx bench/pendingLayers.ts [--k 10,50,200] [--flashblocks 10] [--readers 2]
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import { PerformanceObserver } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { deserialize, serialize } from "node:v8";
import { encodeUpdates } from "../src/node/readerProtocol.ts";
import { LayerStack, MAX_LAYERS } from "../src/pending/layerStack.ts";
import { encodeLayer } from "../src/pending/layerWriter.ts";
import { applyFlashblock, type PendingBlock } from "../src/pending/pendingBlock.ts";
import { overlayPending, type StateView } from "../src/pending/pendingState.ts";
import type { FlashblockUpdate } from "../src/pending/types.ts";
import { withLaidOutDiffs } from "../src/pending/updateLayers.ts";
import {
  applyFlashblockByCopy,
  type CopiedPendingBlock,
  CopyingOverlay,
} from "../test/utils/copyingPending.ts";
import {
  applyAll,
  diffOf,
  fresh,
  IMPLS,
  type Impl,
  nodeAll,
  processAll,
} from "./lib/pendingPaths.ts";
import { type Workload, workload } from "./lib/pendingWorkload.ts";

const { values } = parseArgs({
  options: {
    k: { type: "string", default: "10,50,200" },
    flashblocks: { type: "string", default: "10" },
    readers: { type: "string", default: "2" },
    repeats: { type: "string", default: "7" },
    alloc: { type: "string" },
  },
});
const FLASHBLOCKS = Number(values.flashblocks);
const READERS = Number(values.readers);
const REPEATS = Number(values.repeats);
const PARENT: StateView = {
  account: () => undefined,
  storage: () => new Uint8Array(0),
  code: () => undefined,
};

function cpuUs(run: () => void): number {
  const c0 = process.cpuUsage();
  run();
  const c = process.cpuUsage(c0);
  return c.user + c.system;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** µs per unit: median and min over REPEATS runs, after `warm` runs (compiled, settled). */
function measure(units: number, run: () => void, warm = 2): { med: number; min: number } {
  for (let i = 0; i < warm; i++) run();
  const xs = Array.from({ length: REPEATS }, () => cpuUs(run) / units);
  return { med: median(xs), min: Math.min(...xs) };
}

const fmt = (m: { med: number; min: number }) =>
  `${m.med.toFixed(1).padStart(8)} (${m.min.toFixed(1)})`;

function blocksOf(w: Workload, count: number, first = 1): FlashblockUpdate[][] {
  return Array.from({ length: count }, (_, i) => w.block(first + i));
}

function readCosts(w: Workload, flashblocks: number, k: number): void {
  const blocks = [w.block(1_000)];
  const touched = { accounts: [...w.touched.accounts], slots: [...w.touched.slots] };
  const views: Record<Impl, StateView> = {
    copying: new CopyingOverlay(applyAll("copying", fresh(blocks)) as CopiedPendingBlock, PARENT),
    layered: overlayPending(applyAll("layered", fresh(blocks)) as PendingBlock, PARENT),
  };
  const layers = (applyAll("layered", fresh(blocks)) as PendingBlock).state.layers.length;
  const kinds: Array<[string, (v: StateView) => void, number]> = [
    [
      "account written",
      (v) => {
        for (const a of touched.accounts) v.account(a);
      },
      touched.accounts.length,
    ],
    [
      "account not written",
      (v) => {
        for (const a of w.untouched.accounts) v.account(a);
      },
      w.untouched.accounts.length,
    ],
    [
      "slot written",
      (v) => {
        for (const [a, s] of touched.slots) v.storage(a, s);
      },
      touched.slots.length,
    ],
    [
      "slot not written",
      (v) => {
        for (const [a, s] of w.untouched.slots) v.storage(a, s);
      },
      w.untouched.slots.length,
    ],
  ];
  console.log(
    `  read, µs per read (median (min)), ${flashblocks} flashblocks of ${k} txs, ${layers} layers:`,
  );
  for (const [name, read, count] of kinds) {
    const row = IMPLS.map((impl) =>
      fmt(
        measure(
          count * 20,
          () => {
            for (let i = 0; i < 20; i++) read(views[impl]);
          },
          10,
        ),
      ),
    );
    console.log(`    ${name.padEnd(22)} copying ${row[0]}   layered ${row[1]}`);
  }
}

/** GCs while `run` runs, as the perf hooks report them (delivered after it, on the event loop). */
async function gcDuring(run: () => void): Promise<{ count: number; ms: number }> {
  let count = 0;
  let ms = 0;
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      count++;
      ms += e.duration;
    }
  });
  obs.observe({ entryTypes: ["gc"] });
  run();
  await new Promise((resolve) => setTimeout(resolve, 50));
  obs.disconnect();
  return { count, ms };
}

/** In a child whose young generation holds it all: heap and array-buffer bytes per flashblock. */
function allocation(impl: Impl, k: number): string {
  const child = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "--expose-gc",
      "--min-semi-space-size=512",
      "--max-semi-space-size=512",
      fileURLToPath(import.meta.url),
      "--alloc",
      `${impl}:${k}`,
      "--flashblocks",
      String(FLASHBLOCKS),
    ],
    { encoding: "utf8" },
  );
  if (child.status !== 0) return `failed: ${child.stderr.slice(0, 300)}`;
  return child.stdout.trim();
}

async function allocChild(spec: string): Promise<void> {
  const [impl, k] = spec.split(":") as [Impl, string];
  const w = workload({ k: Number(k), flashblocks: FLASHBLOCKS });
  const blocks = fresh(blocksOf(w, 4));
  // Warm (compiled code is heap too), with no forced GC after it: a full GC drops type
  // feedback, and what is measured would compile again.
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  const warm = blocksOf(w, 6, 100);
  for (let i = 0; i < 3; i++) applyAll(impl, fresh(warm));
  let collections = 0;
  const obs = new PerformanceObserver((l) => {
    collections += l.getEntries().length;
  });
  obs.observe({ entryTypes: ["gc"] });
  const m0 = process.memoryUsage();
  const kept = applyAll(impl, blocks);
  const m1 = process.memoryUsage();
  await new Promise((resolve) => setTimeout(resolve, 50));
  obs.disconnect();
  const n = blocks.length * (FLASHBLOCKS + 1);
  const kb = (b: number) => `${(b / n / 1024).toFixed(1)} KiB`;
  console.log(
    `heap ${kb(m1.heapUsed - m0.heapUsed)}, array buffers ${kb(m1.arrayBuffers - m0.arrayBuffers)} per flashblock${collections > 0 ? ` (${collections} GCs ran: heap is a lower bound)` : ""}`,
  );
  void kept;
}

async function main(): Promise<void> {
  if (values.alloc !== undefined) {
    await allocChild(values.alloc);
    return;
  }
  console.log(
    `pending block: copying (before) vs layered (after); ${FLASHBLOCKS} flashblocks + flashblock 0 per block; ${REPEATS} runs, CPU µs median (min); MAX_LAYERS ${MAX_LAYERS}; load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  for (const k of values.k
    .split(",")
    .filter((x) => x !== "")
    .map(Number)) {
    const w = workload({ k, flashblocks: FLASHBLOCKS });
    const count = Math.max(2, Math.round(200 / k));
    const blocks = blocksOf(w, count);
    const units = count * (FLASHBLOCKS + 1);
    console.log(`K = ${k} transactions a flashblock (${count} blocks):`);
    for (const [name, run] of [
      ["apply", applyAll],
      ["process", processAll],
      [`node (${READERS} readers)`, nodeAll],
    ] as const) {
      const row = IMPLS.map((impl) =>
        fmt(measure(units, () => void run(impl, fresh(blocks), READERS))),
      );
      console.log(`  ${name.padEnd(18)} µs per flashblock: copying ${row[0]}   layered ${row[1]}`);
    }
    // Crossing to a reader process: what is serialized and deserialized per flashblock.
    const crossing = IMPLS.map((impl) =>
      fmt(
        measure(units, () => {
          for (const b of fresh(blocks))
            for (const u of b)
              deserialize(
                impl === "copying"
                  ? serialize({ updates: [u], sentAt: 0 })
                  : encodeUpdates({ updates: [withLaidOutDiffs(u)], sentAt: 0 }),
              );
        }),
      ),
    );
    console.log(
      `  to a reader        µs per flashblock, serialized + deserialized once: copying ${crossing[0]}   layered ${crossing[1]}`,
    );
    // The block's last flashblock alone: the copying block pays for the block so far.
    const last = IMPLS.map((impl) => {
      const runs = Array.from({ length: REPEATS }, () => {
        let us = 0;
        for (const b of fresh(blocks)) {
          const tail = b[b.length - 1]!;
          if (impl === "copying") {
            let p: CopiedPendingBlock | undefined;
            for (const u of b.slice(0, -1)) p = applyFlashblockByCopy(p, { ...u, diff: diffOf(u) });
            us += cpuUs(() => applyFlashblockByCopy(p, { ...tail, diff: diffOf(tail) }));
          } else {
            let p: PendingBlock | undefined;
            for (const u of b.slice(0, -1)) p = applyFlashblock(p, u);
            us += cpuUs(() => applyFlashblock(p, tail));
          }
        }
        return us / blocks.length;
      });
      return fmt({ med: median(runs), min: Math.min(...runs) });
    });
    console.log(`  apply, last one    µs per flashblock: copying ${last[0]}   layered ${last[1]}`);
    for (const impl of IMPLS) {
      const g = await gcDuring(() => {
        for (let i = 0; i < 3; i++) applyAll(impl, fresh(blocks));
      });
      console.log(
        `  GC during apply    ${impl}: ${(g.count / (3 * units)).toFixed(2)} GCs and ${((g.ms * 1000) / (3 * units)).toFixed(1)} µs of GC per flashblock`,
      );
    }
    for (const impl of IMPLS) console.log(`  allocated          ${impl}: ${allocation(impl, k)}`);
    readCosts(w, FLASHBLOCKS, k);
  }
  const long = workload({ k: 10, flashblocks: MAX_LAYERS * 6 });
  console.log(`a long block (${MAX_LAYERS * 6} flashblocks of 10 txs):`);
  const blocks = blocksOf(long, 2);
  const units = 2 * (MAX_LAYERS * 6 + 1);
  const row = IMPLS.map((impl) => fmt(measure(units, () => void applyAll(impl, fresh(blocks)))));
  console.log(`  apply              µs per flashblock: copying ${row[0]}   layered ${row[1]}`);
  readCosts(long, MAX_LAYERS * 6, 10);
  depthSweep(long, blocks);
}

/** The bound on layers: what a long block's flashblocks and reads cost under each. */
function depthSweep(w: Workload, blocks: readonly FlashblockUpdate[][]): void {
  console.log("  the bound on layers (layered only; µs per flashblock, µs per read):");
  const diffs = blocks.map((b) => b.map(diffOf));
  const reads: Array<[string, (s: LayerStack) => void, number]> = [
    [
      "slot written",
      (s) => {
        for (const [a, k] of w.touched.slots) s.storage(a, k);
      },
      w.touched.slots.length,
    ],
    [
      "slot not written",
      (s) => {
        for (const [a, k] of w.untouched.slots) s.storage(a, k);
      },
      w.untouched.slots.length,
    ],
    [
      "account not written",
      (s) => {
        for (const a of w.untouched.accounts) s.account(a);
      },
      w.untouched.accounts.length,
    ],
  ];
  for (const max of [4, 8, 16, 32, 64, 128]) {
    let last = LayerStack.EMPTY;
    const apply = measure(diffs.flat().length, () => {
      for (const b of diffs) {
        let s = LayerStack.EMPTY;
        for (const d of b) s = s.with(encodeLayer(d), max);
        last = s;
      }
    });
    const cells = reads.map(([name, read, count]) => {
      const m = measure(
        count * 20,
        () => {
          for (let i = 0; i < 20; i++) read(last);
        },
        10,
      );
      return `${name} ${m.med.toFixed(2)}`;
    });
    console.log(
      `    at most ${String(max).padStart(3)} (${String(last.layers.length).padStart(3)} layers): apply ${apply.med.toFixed(1).padStart(7)}; ${cells.join(", ")}`,
    );
  }
}

await main();
