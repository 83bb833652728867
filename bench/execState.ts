// Execution's state path, in one process on the real executor and archive (bench/lib/
// execChains.ts): ERC-20 transfers, constant-product swaps and swap chains (bench/contracts/
// FollowLoad.sol) built by the sequencer's path, replayed by a follower (a fork at the block
// after the setup, flashblock by flashblock, sealed as the follower seals) and imported with
// every root verified. Per path and workload: CPU µs per transaction, Mgas per CPU-second (all
// the process's threads: process.cpuUsage) and the share of its wall time in GC pauses
// (perf_hooks' gc entries, which are wall time: a loaded machine stretches both alike).
// `--against REV` runs the same file on REV too (a detached git worktree beside this one, this
// repository's node_modules linked), the two alternating `--repeat` times: before and after in
// one run, medians reported. The machine may be shared: CPU time, not wall time, is the measure.
// Run: node --import tsx bench/execState.ts [--against main --repeat 3] [--cpu-prof DIR]
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PerformanceObserver } from "node:perf_hooks";
import { parseArgs } from "node:util";
import type { Hex } from "viem";
import { hexToBytes } from "../src/util/hex.ts";
import {
  type BuiltBlock,
  blockDigests,
  closeArchive,
  devSpec,
  FollowerChain,
  ImportChain,
  SequencerChain,
} from "./lib/execChains.ts";
import { compileLoadContracts, LoadSigner } from "./lib/followLoad.ts";

const { values } = parseArgs({
  options: {
    senders: { type: "string", default: "40" },
    blocks: { type: "string", default: "6" },
    flashblocks: { type: "string", default: "5" },
    "per-flashblock": { type: "string", default: "10" },
    rounds: { type: "string", default: "10" },
    workloads: { type: "string", default: "transfers,swaps,swapChains" },
    against: { type: "string" },
    repeat: { type: "string", default: "3" },
    "cpu-prof": { type: "string" },
    json: { type: "boolean", default: false },
  },
});
const SENDERS = Number(values.senders);
const BLOCKS = Number(values.blocks);
const FLASHBLOCKS = Number(values.flashblocks);
const PER_FLASHBLOCK = Number(values["per-flashblock"]);
const ROUNDS = Number(values.rounds);
const WORKLOADS = values.workloads.split(",");

type Measure = { cpuUs: number; gcMs: number; wallMs: number; gas: number; txs: number };
/**
 * Per path and workload, and `hashes`: the sequencer chain's block hashes and change sets, its
 * flashblocks' state diffs, and the follower's and importer's change sets.
 */
type Results = Record<string, Measure> & { hashes?: string[] };

let gcMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration;
}).observe({ entryTypes: ["gc"] });

/** GC entries reach the observer on a later turn of the event loop. */
const observed = () =>
  new Promise((r) => setImmediate(r)).then(() => new Promise((r) => setImmediate(r)));

async function timed(gas: number, txs: number, fn: () => Promise<void>): Promise<Measure> {
  await observed();
  const gc0 = gcMs;
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  await fn();
  const cpu = process.cpuUsage(cpu0);
  const wall = performance.now() - wall0;
  await observed();
  return {
    cpuUs: cpu.user + cpu.system,
    gcMs: gcMs - gc0,
    wallMs: wall,
    gas,
    txs,
  };
}

/** One workload's signed transactions: `BLOCKS` blocks of `FLASHBLOCKS` × `PER_FLASHBLOCK`. */
async function sign(signer: LoadSigner, workload: string, next: { i: number }): Promise<Hex[][][]> {
  const one = (): Promise<Hex> => {
    const i = next.i++;
    const from = i % SENDERS;
    if (workload === "transfers") return signer.transfer(from, i, 80_000n);
    if (workload === "swaps") return signer.swap(from, i, 200_000n);
    return signer.swapRounds(from, ROUNDS, 300_000n * BigInt(ROUNDS));
  };
  const blocks: Hex[][][] = [];
  for (let b = 0; b < BLOCKS; b++) {
    const fbs: Hex[][] = [];
    for (let f = 0; f < FLASHBLOCKS; f++) {
      const txs: Hex[] = [];
      for (let t = 0; t < PER_FLASHBLOCK; t++) txs.push(await one());
      fbs.push(txs);
    }
    blocks.push(fbs);
  }
  return blocks;
}

async function runOnce(): Promise<Results> {
  const spec = await devSpec(SENDERS);
  const seq = await SequencerChain.open(spec);
  const signer = new LoadSigner(SENDERS, compileLoadContracts(), Number(spec.common.chainId()));
  const setup = await signer.setup(10n ** 30n, 10n ** 26n);
  const bytes = (list: Hex[]) => list.map((h) => hexToBytes(h));
  // The setup in blocks of 100, untimed; the follower forks after it, the importer imports it.
  const setupBlocks: number[] = [];
  for (let i = 0; i < setup.length; i += 100)
    setupBlocks.push((await seq.block([bytes(setup.slice(i, i + 100))])).number);
  const follower = await FollowerChain.open(seq);
  const importer = await ImportChain.open(seq);
  for (const n of setupBlocks) await importer.import(n);

  const results: Results = {};
  const next = { i: 0 };
  const gasOf = (built: BuiltBlock[]) =>
    built.reduce((sum, b) => sum + Number(seq.storedBlock(b.number).header.gasUsed), 0);
  for (const workload of WORKLOADS) {
    const signed = await sign(signer, workload, next);
    const txs = BLOCKS * FLASHBLOCKS * PER_FLASHBLOCK;
    const built: BuiltBlock[] = [];
    const s = await timed(0, txs, async () => {
      for (const fbs of signed) built.push(await seq.block(fbs.map(bytes)));
    });
    const gas = gasOf(built);
    results[`sequencer/${workload}`] = { ...s, gas };
    results[`follower/${workload}`] = await timed(gas, txs, async () => {
      for (const b of built) await follower.follow(b);
    });
    results[`import/${workload}`] = await timed(gas, txs, async () => {
      for (const b of built) await importer.import(b.number);
    });
  }
  const hashes = [
    ...seq.hashes(),
    ...seq.diffs.map((d) => `flashblock diff ${d}`),
    ...blockDigests(follower.archive.store).map((d) => `follower ${d}`),
    ...blockDigests(importer.archive.store).map((d) => `import ${d}`),
  ];
  await closeArchive(follower.archive);
  await closeArchive(importer.archive);
  await closeArchive(seq.archive);
  return Object.assign(results, { hashes });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
}

function summary(runs: Results[], key: string) {
  const m = runs.map((r) => r[key]!);
  const cpuUs = median(m.map((x) => x.cpuUs));
  const gas = m[0]!.gas;
  return {
    usPerTx: cpuUs / m[0]!.txs,
    mgasPerCpuS: gas / cpuUs,
    gcShare: median(m.map((x) => x.gcMs / x.wallMs)),
    spread: (Math.max(...m.map((x) => x.cpuUs)) - Math.min(...m.map((x) => x.cpuUs))) / cpuUs,
  };
}

function report(label: string, runs: Results[], base?: Results[]): void {
  console.log(`\n${label} (${runs.length} run(s), medians of CPU time)`);
  console.log(
    "path/workload".padEnd(22) +
      "µs/tx".padStart(9) +
      "Mgas/CPU-s".padStart(12) +
      "GC".padStart(7) +
      "spread".padStart(8) +
      (base === undefined ? "" : "  before: µs/tx  Mgas/CPU-s     GC   ratio"),
  );
  for (const key of Object.keys(runs[0]!).filter((k) => k !== "hashes")) {
    const a = summary(runs, key);
    let line =
      key.padEnd(22) +
      a.usPerTx.toFixed(0).padStart(9) +
      a.mgasPerCpuS.toFixed(1).padStart(12) +
      `${(a.gcShare * 100).toFixed(0)}%`.padStart(7) +
      `${(a.spread * 100).toFixed(0)}%`.padStart(8);
    if (base?.[0]?.[key] !== undefined) {
      const b = summary(base, key);
      line +=
        b.usPerTx.toFixed(0).padStart(16) +
        b.mgasPerCpuS.toFixed(1).padStart(12) +
        `${(b.gcShare * 100).toFixed(0)}%`.padStart(7) +
        `×${(a.mgasPerCpuS / b.mgasPerCpuS).toFixed(2)}`.padStart(8);
    }
    console.log(line);
  }
}

/** This file's tree, or a worktree of `rev` with this file, its lib and node_modules beside. */
function treeOf(rev: string): string {
  const here = resolve(import.meta.dirname, "..");
  const dir = mkdtempSync(join(tmpdir(), "exec-state-before-"));
  execFileSync("git", ["-C", here, "worktree", "add", "--detach", dir, rev], { stdio: "ignore" });
  symlinkSync(join(here, "node_modules"), join(dir, "node_modules"));
  for (const f of ["bench/execState.ts", "bench/lib/execChains.ts"])
    copyFileSync(join(here, f), join(dir, f));
  return dir;
}

function child(tree: string, args: string[], prof: string | undefined): Results {
  const flags = prof === undefined ? [] : ["--cpu-prof", "--cpu-prof-dir", prof];
  const out = spawnSync(
    process.execPath,
    [...flags, "--import", "tsx", "bench/execState.ts", "--json", ...args],
    { cwd: tree, encoding: "utf8", maxBuffer: 1 << 26 },
  );
  if (out.status !== 0) throw new Error(`bench in ${tree} failed:\n${out.stderr}`);
  const last = out.stdout.trim().split("\n").pop()!;
  return JSON.parse(last) as Results;
}

async function main(): Promise<void> {
  if (values.json) {
    console.log(JSON.stringify(await runOnce()));
    return;
  }
  const passOn = process.argv
    .slice(2)
    .filter((_a, i, all) => !["--against", "--repeat", "--cpu-prof"].includes(all[i - 1] ?? ""))
    .filter((a) => !["--against", "--repeat", "--cpu-prof"].includes(a));
  const here = resolve(import.meta.dirname, "..");
  const prof = values["cpu-prof"];
  const profDir = (name: string) => {
    if (prof === undefined) return undefined;
    const d = join(resolve(prof), name);
    if (!existsSync(d)) mkdirSync(d, { recursive: true });
    return d;
  };
  const repeat = Number(values.repeat);
  const before = values.against === undefined ? undefined : treeOf(values.against);
  const after: Results[] = [];
  const base: Results[] = [];
  try {
    for (let r = 0; r < repeat; r++) {
      if (before !== undefined) base.push(child(before, passOn, profDir("before")));
      after.push(child(here, passOn, profDir("after")));
    }
  } finally {
    if (before !== undefined)
      execFileSync("git", ["-C", here, "worktree", "remove", "--force", before]);
  }
  // The blocks are the same whatever the tree: a changed state root changes every hash after it;
  // the archive's change sets and the flashblocks' diffs must not change either.
  const hashes = (r: Results) => JSON.stringify(r.hashes);
  const all = [...after, ...base];
  const same = all.every((r) => hashes(r) === hashes(all[0]!));
  console.log(
    `block hashes, change sets and flashblock diffs (${all[0]!.hashes!.length}): ${same ? "identical in every run" : "DIFFERENT between runs"}${before === undefined ? "" : " (both trees)"}`,
  );
  if (!same) process.exitCode = 1;
  console.log(
    `${BLOCKS} blocks × ${FLASHBLOCKS} flashblocks × ${PER_FLASHBLOCK} transactions per workload, ${SENDERS} senders, swap chains of ${ROUNDS} rounds`,
  );
  report("this tree", after, before === undefined ? undefined : base);
  if (before !== undefined) report(`before (${values.against})`, base);
}

await main();
