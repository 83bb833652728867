// In-process micro-bench of the execution paths and the work around the EVM (issue 31, item 2):
// one OP-stack dev chain built by a real Sequencer (intake, execution, flashblocks, seal), the
// same blocks replayed from its flashblocks by a follower's PendingReplay and sealed as the
// follower seals them (PendingReplay.sealAs, as follower.ts imports), and imported as canonical blocks by BlockExecutor.execute
// (what `flashnode import` and a follower without a usable replay run). Everything runs in this
// one process, on its own lmdb datadirs; each path is timed in process CPU time (user + system,
// all threads: the machine is shared, wall time would measure the neighbours); its GC pauses are
// summed from perf_hooks' gc entries, which are wall time, and given as a share of the wall time. The workloads are bench/contracts/FollowLoad.sol's: ERC-20
// transfers and constant-product swaps (typical) and swaps of 20 rounds (swap chains).
// Run: node --import tsx bench/execOverhead.ts [--blocks 6 --per-block 200 --per-flashblock 50
//        --senders 20 --rounds 20 --repeat 3 --cpu-prof DIR --alloc]
// (--alloc: bytes allocated per transaction, sampled; it slows the run, so its times are not the
// ones to read)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PerformanceObserver } from "node:perf_hooks";
import { parseArgs } from "node:util";
import type { Hex } from "viem";
import { type ChainSpec, chainSpecFromGenesis } from "../src/chain/genesis.ts";
import { newDevGenesis } from "../src/chain/newDevChain.ts";
import { blockFromRlp } from "../src/chain/op/blockTx.ts";
import { SEQUENCER_FEE_VAULT } from "../src/chain/op/config.ts";
import { DEFAULT_DEV_L1 } from "../src/chain/op/l1Info.ts";
import { blockRlp } from "../src/chain/rawEncoding.ts";
import type { BlockExecutor } from "../src/exec/blockExecutor.ts";
import { ensureGenesis } from "../src/exec/chainStart.ts";
import { type Flashblock, parseFlashblock } from "../src/follow/flashblock.ts";
import { canonicalBlock, PendingReplay } from "../src/follow/pendingReplay.ts";
import { wireJsonOf } from "../src/pending/flashblockWire.ts";
import type { FlashblockUpdate, SealedUpdate } from "../src/pending/types.ts";
import { Sequencer } from "../src/sequencer/sequencer.ts";
import type { ChainStore } from "../src/store/archive.ts";
import { createChainStore } from "../src/store/chainStore.ts";
import { openKvEnv } from "../src/store/lmdb.ts";
import { hexToBytes } from "../src/util/hex.ts";
import { compileLoadContracts, LoadSigner } from "./lib/followLoad.ts";

const { values } = parseArgs({
  options: {
    blocks: { type: "string", default: "6" },
    "per-block": { type: "string", default: "200" },
    "per-flashblock": { type: "string", default: "50" },
    senders: { type: "string", default: "20" },
    rounds: { type: "string", default: "20" },
    repeat: { type: "string", default: "3" },
    workloads: { type: "string", default: "typical,chains" },
    "cpu-prof": { type: "string" },
    alloc: { type: "boolean", default: false },
  },
});
const BLOCKS = Number(values.blocks);
const PER_BLOCK = Number(values["per-block"]);
const PER_FLASHBLOCK = Number(values["per-flashblock"]);
const SENDERS = Number(values.senders);
const ROUNDS = Number(values.rounds);
const REPEAT = Number(values.repeat);
const PROFILE_DIR = values["cpu-prof"];
/** Bytes allocated per phase, from V8's sampling heap profiler (collected objects included). */
const ALLOC = values.alloc;

type Node = {
  readonly spec: ChainSpec;
  readonly store: ChainStore;
  readonly executor: BlockExecutor;
  close(): Promise<void>;
};

async function openNode(dir: string, genesis: unknown): Promise<Node> {
  const env = openKvEnv(dir, { noSync: true });
  const store = createChainStore(env);
  const spec = await chainSpecFromGenesis(genesis);
  const executor = await ensureGenesis(spec, store);
  return { spec, store, executor, close: () => env.close() };
}

/** GC time (ms) reported by perf_hooks between two reads. */
let gcMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration;
}).observe({ entryTypes: ["gc"] });

/**
 * `gcSamples`: with --cpu-prof, the garbage collector's share of the main thread's busy samples
 * (a sample is taken when the thread runs, so on a shared machine this share is closer to its
 * CPU than the pauses' wall time is).
 */
type Measure = {
  cpuMs: number;
  wallMs: number;
  gcMs: number;
  gcSamples?: number;
  allocatedBytes?: number;
};

type HeapNode = { selfSize: number; children: HeapNode[] };
const heapTotal = (n: HeapNode): number =>
  n.children.reduce((t, c) => t + heapTotal(c), n.selfSize);

const session = new Session();
session.connect();

/** Runs `fn`, returning its process CPU time and GC time; profiled to DIR/name when asked. */
async function measure(name: string, fn: () => Promise<void>): Promise<Measure> {
  if (PROFILE_DIR !== undefined) {
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 200 });
    await session.post("Profiler.start");
  }
  if (ALLOC) {
    await session.post("HeapProfiler.enable");
    await session.post("HeapProfiler.startSampling", {
      samplingInterval: 16384,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    } as never);
  }
  await new Promise((r) => setTimeout(r, 50));
  const gc0 = gcMs;
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  await fn();
  const wallMs = performance.now() - wall0;
  const cpu = process.cpuUsage(cpu0);
  // gc entries are delivered on a later turn of the event loop: flushed before they are read.
  await new Promise((r) => setTimeout(r, 50));
  const out: Measure = { cpuMs: (cpu.user + cpu.system) / 1000, wallMs, gcMs: gcMs - gc0 };
  if (ALLOC) {
    const { profile } = await session.post("HeapProfiler.stopSampling");
    out.allocatedBytes = heapTotal(profile.head as HeapNode);
  }
  if (PROFILE_DIR !== undefined) {
    const { profile } = await session.post("Profiler.stop");
    mkdirSync(PROFILE_DIR, { recursive: true });
    writeFileSync(join(PROFILE_DIR, `${name}.cpuprofile`), JSON.stringify(profile));
    const kind = new Map(profile.nodes.map((n) => [n.id, n.callFrame.functionName]));
    const names = (profile.samples ?? []).map((id) => kind.get(id));
    const busy = names.filter((n) => n !== "(idle)").length;
    out.gcSamples = names.filter((n) => n === "(garbage collector)").length / busy;
  }
  return out;
}

/** A sequencer in this process whose flashblocks and seals come only when the bench asks. */
function startSequencer(node: Node, updates: (FlashblockUpdate | SealedUpdate)[]): Sequencer {
  return new Sequencer(
    node.executor,
    node.store,
    node.spec.common.copy(),
    {
      blockTimeMs: 1e9,
      flashblockIntervalMs: 1e9,
      gasLimit: 500_000_000n,
      coinbase: SEQUENCER_FEE_VAULT,
      l1: DEFAULT_DEV_L1,
    },
    (u) => updates.push(u),
  );
}

async function submitAll(seq: Sequencer, raws: readonly Hex[]): Promise<void> {
  const results = await Promise.allSettled(raws.map((r) => seq.submit(hexToBytes(r))));
  const failed = results.find((r) => r.status === "rejected");
  if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
}

function storedRlp(node: Node, n: number): Uint8Array {
  const hash = node.store.canonicalHash(n)!;
  return blockRlp(node.store.headerRlp(n, hash)!, node.store.bodyRlp(n, hash)!);
}

function storedBlock(node: Node, n: number) {
  return blockFromRlp(storedRlp(node, n), { common: node.spec.common, setHardfork: true });
}

/** The flashblocks of block `n` as Base's stream carried them (parsed from their wire JSON). */
function flashblocksOf(updates: readonly (FlashblockUpdate | SealedUpdate)[], n: number) {
  const out: Flashblock[] = [];
  for (const u of updates) {
    const fb = u.kind === "flashblock" ? u : u.next;
    if (fb.base.number === n) out.push(parseFlashblock(JSON.parse(wireJsonOf(fb)!)));
  }
  return out;
}

type Row = { path: string; txs: number; gas: bigint } & Measure;

async function runWorkload(
  name: string,
  sign: (signer: LoadSigner, i: number) => Promise<Hex>,
): Promise<Row[]> {
  const root = mkdtempSync(join(tmpdir(), "flashnode-exec-overhead-"));
  const genesis = await newDevGenesis({
    chainId: 84532n,
    fork: "prague",
    ethereum: false,
    l1: DEFAULT_DEV_L1,
    gasLimit: 500_000_000n,
    accounts: SENDERS,
    balanceEth: 1_000_000n,
  });
  const seqNode = await openNode(join(root, "seq"), genesis);
  const followNode = await openNode(join(root, "follow"), genesis);
  const importNode = await openNode(join(root, "import"), genesis);
  const updates: (FlashblockUpdate | SealedUpdate)[] = [];
  const seq = startSequencer(seqNode, updates);
  await seq.start();
  const signer = new LoadSigner(SENDERS, compileLoadContracts(), 84532);
  try {
    // Set-up: contracts, liquidity, approvals; then one warm-up block of the workload.
    await submitAll(seq, await signer.setup(10n ** 24n, 10n ** 22n));
    await seq.mine();
    const warm: Hex[] = [];
    for (let i = 0; i < SENDERS * 2; i++) warm.push(await sign(signer, i));
    await submitAll(seq, warm);
    await seq.mine();
    const first = seqNode.store.headNumber()! + 1;
    for (let n = 1; n < first; n++) {
      for (const node of [followNode, importNode]) {
        const write = await node.executor.execute(storedBlock(seqNode, n));
        node.store.writeBlock(write);
      }
    }
    const raws: Hex[][] = [];
    for (let b = 0; b < BLOCKS; b++) {
      const block: Hex[] = [];
      for (let i = 0; i < PER_BLOCK; i++) block.push(await sign(signer, b * PER_BLOCK + i));
      raws.push(block);
    }
    const rows: Row[] = [];
    const last = first + BLOCKS - 1;
    const gas = () => {
      let g = 0n;
      for (let n = first; n <= last; n++) g += storedBlock(seqNode, n).header.gasUsed;
      return g;
    };

    const sequencer = await measure(`${name}-sequencer`, async () => {
      for (const block of raws) {
        for (let i = 0; i < block.length; i += PER_FLASHBLOCK) {
          await submitAll(seq, block.slice(i, i + PER_FLASHBLOCK));
          await seq.serial(() => seq.tick());
        }
        await seq.mine();
      }
    });
    if (seqNode.store.headNumber() !== last) throw new Error("the sequencer sealed other blocks");
    const txs = BLOCKS * PER_BLOCK;
    const totalGas = gas();
    rows.push({ path: "sequencer", txs, gas: totalGas, ...sequencer });

    const flashblocks = new Map<number, Flashblock[]>();
    const rlps = new Map<number, Uint8Array>();
    for (let n = first; n <= last; n++) {
      flashblocks.set(n, flashblocksOf(updates, n));
      rlps.set(n, storedRlp(seqNode, n));
    }
    const common = followNode.spec.common;
    const replay = new PendingReplay(followNode.executor, followNode.spec.common);
    const follower = await measure(`${name}-follower`, async () => {
      for (let n = first; n <= last; n++) {
        const [fb0, ...rest] = flashblocks.get(n)!;
        await replay.start(fb0!.payloadId, fb0!.base!, [fb0!]);
        for (const fb of rest) await replay.extend(fb);
        // As the follower imports (follower.ts importBlock): the block's RLP read, and the
        // block sealed from the replay, whose transactions root proves the block's list.
        const write = await replay.sealAs(canonicalBlock(rlps.get(n)!, common));
        if (write === undefined) throw new Error(`block ${n} was not sealed from its replay`);
        followNode.store.writeBlock(write);
      }
    });
    rows.push({ path: "follower replay+seal", txs, gas: totalGas, ...follower });

    const imported = await measure(`${name}-import`, async () => {
      for (let n = first; n <= last; n++) {
        // As `flashnode import` does: the block decoded, executed, verified, written.
        const block = blockFromRlp(rlps.get(n)!, { common, setHardfork: true });
        importNode.store.writeBlock(await importNode.executor.execute(block));
      }
    });
    rows.push({ path: "canonical import", txs, gas: totalGas, ...imported });
    return rows;
  } finally {
    await seq.stop();
    for (const node of [seqNode, followNode, importNode]) await node.close();
    rmSync(root, { recursive: true, force: true });
  }
}

const workloads: Record<string, (signer: LoadSigner, i: number) => Promise<Hex>> = {
  // Half ERC-20 transfers, half swaps, round-robin over the senders.
  typical: (s, i) => {
    const from = i % SENDERS;
    const round = Math.floor(i / SENDERS);
    return round % 2 === 0 ? s.transfer(from, round >> 1, 120_000n) : s.swap(from, round, 200_000n);
  },
  // Swap chains: ROUNDS swaps back and forth in each transaction.
  chains: (s, i) => s.swapRounds(i % SENDERS, ROUNDS, 3_000_000n),
};

console.log(
  `exec overhead: ${BLOCKS} blocks × ${PER_BLOCK} transactions, flashblocks of ${PER_FLASHBLOCK}, ${SENDERS} senders, ${REPEAT} runs; process CPU time (the machine is shared)`,
);
for (const name of values.workloads.split(",")) {
  const sign = workloads[name];
  if (sign === undefined) throw new Error(`unknown workload ${name}`);
  const runs: Row[][] = [];
  for (let r = 0; r < REPEAT; r++) runs.push(await runWorkload(name, sign));
  for (const [i, first] of runs[0]!.entries()) {
    const all = runs.map((rows) => rows[i]!);
    const perTx = all.map((row) => (row.cpuMs * 1000) / row.txs).sort((a, b) => a - b);
    const mgas = all.map((row) => Number(row.gas) / 1e6 / (row.cpuMs / 1000)).sort((a, b) => a - b);
    // GC pauses are wall time (perf_hooks' gc entries): their share of the phase's wall time.
    const gc = all.map((row) => (row.gcMs / row.wallMs) * 100).sort((a, b) => a - b);
    const gcPerTx = all.map((row) => (row.gcMs * 1000) / row.txs).sort((a, b) => a - b);
    const mid = Math.floor(all.length / 2);
    const sampled = all.flatMap((row) => (row.gcSamples === undefined ? [] : [row.gcSamples]));
    const gcShare =
      sampled.length === 0
        ? ""
        : `, ${((sampled.reduce((a, b) => a + b, 0) / sampled.length) * 100).toFixed(1)}% of busy samples`;
    const allocs = all.flatMap((r) => (r.allocatedBytes === undefined ? [] : [r.allocatedBytes]));
    const alloc =
      allocs.length === 0
        ? ""
        : `  allocated ${(allocs.reduce((a, b) => a + b, 0) / allocs.length / first.txs / 1024).toFixed(0)} KiB/tx`;
    console.log(
      `${name.padEnd(8)} ${first.path.padEnd(22)} ${(Number(first.gas) / first.txs).toFixed(0).padStart(7)} gas/tx  ` +
        `${perTx[mid]!.toFixed(0).padStart(6)} µs/tx (${perTx.map((v) => v.toFixed(0)).join(", ")})  ` +
        `${mgas[mid]!.toFixed(1).padStart(6)} Mgas/CPU-s  GC ${gc[mid]!.toFixed(1)}% of wall, ${gcPerTx[mid]!.toFixed(0)} µs/tx${gcShare}${alloc}`,
    );
  }
}
session.disconnect();
