// The phases of `npm run bench:exec`, each on its own group of nodes set up from the same signed
// plan (execPlan.ts); within a phase, rounds alternate which side goes first.
import type { ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Hex } from "viem";
import { startAnvil } from "../compare/peers.ts";
import {
  GAS_LIMIT,
  type RunningNode,
  runImport,
  type Side,
  startDev,
  startFollower,
  tempDir,
} from "./execNodes.ts";
import { callLatencies, measureAnvil, measureFollower, measureSequencer } from "./execPaths.ts";
import type { Plan } from "./execPlan.ts";
import { type Column, PathResults } from "./execReport.ts";
import type { WorkloadKind } from "./execWorkload.ts";
import { rpc } from "./followPhase.ts";
import { mineBlock } from "./txSigner.ts";
import { runSetup } from "./uniswapSetup.ts";

export type PhaseContext = {
  readonly sides: readonly Side[];
  /** CPU of the measured processes and of the load (undefined: not pinned). */
  readonly measuredCpu: string | undefined;
  readonly loadCpu: string | undefined;
  readonly senders: number;
  /** Every child started, so the watchdog can kill them. */
  readonly children: ChildProcess[];
  readonly log: (line: string) => void;
};

type Rounds = readonly Map<WorkloadKind, Hex[]>[];

/** Sides in round `r`'s order: after first in even rounds, before first in odd ones. */
const ordered = <T>(list: readonly T[], r: number): T[] =>
  r % 2 === 0 ? [...list] : [...list].reverse();

async function prepare(url: string, plan: Plan): Promise<void> {
  await runSetup(url, plan.setup);
  await mineBlock(url, plan.warm);
}

async function anvilNode(ctx: PhaseContext): Promise<RunningNode> {
  const a = await startAnvil({
    accounts: ctx.senders + 1,
    gasLimit: GAS_LIMIT,
    ...(ctx.measuredCpu === undefined ? {} : { cpus: ctx.measuredCpu }),
  });
  ctx.children.push(a.child);
  return { child: a.child, pid: a.child.pid!, url: a.url, base: a.url };
}

/** A load's block in the after side's chain: its workload's transactions and their gas. */
type Load = { kind: WorkloadKind; block: number; txs: number; gas: number };

export type SequencerPhase = {
  readonly sealed: PathResults;
  readonly flashblocks: PathResults;
  readonly calls: Map<Column, number[]>;
  /** The after side's chain: its blocks' RLP, and which block holds which round's load. */
  readonly chain: { raw: Hex[]; warmHead: number; loads: Load[] };
};

/** The sequencer path and eth_call on OP-stack dev chains (long blocks), anvil beside. */
export async function sequencerPhase(
  ctx: PhaseContext,
  plan: Plan,
  rounds: Rounds,
  genesis: string,
  calls: number,
): Promise<SequencerPhase> {
  const devArgs = ["--genesis", genesis, "--block-time", "3600s"];
  const nodes = new Map<Column, RunningNode>();
  for (const side of ctx.sides) {
    const n = await startDev(side, devArgs, ctx.measuredCpu);
    ctx.children.push(n.child);
    nodes.set(side.name, n);
  }
  nodes.set("anvil", await anvilNode(ctx));
  for (const [name, n] of nodes) {
    await prepare(n.url, plan);
    ctx.log(`sequencer phase: ${name} set up (${n.url})`);
  }
  const after = nodes.get("after")!;
  const warmHead = Number(await rpc<string>(after.url, "eth_blockNumber"));
  const sealed = new PathResults(
    "sequencer: flashnode dev (OP stack) executing a load sent in bulk, until evm_mine sealed it; anvil: one evm_mine",
    "flashnode: the sequencer thread; anvil: its process",
  );
  const flashblocks = new PathResults(
    "sequencer, flashblocks only: until the pending block held the whole load (before the seal)",
    "the sequencer thread",
  );
  const loads: Load[] = [];
  for (const [r, round] of rounds.entries()) {
    for (const [kind, raws] of round) {
      for (const side of ordered(ctx.sides, r)) {
        const m = await measureSequencer(nodes.get(side.name)!, raws);
        sealed.add(kind, side.name, m.sealed);
        flashblocks.add(kind, side.name, m.flashblocks);
        if (side.name === "after") {
          const block = Number(await rpc<string>(after.url, "eth_blockNumber"));
          loads.push({ kind, block, txs: m.sealed.txs, gas: m.sealed.gas });
        }
      }
      sealed.add(kind, "anvil", await measureAnvil(nodes.get("anvil")!, raws));
    }
    ctx.log(`sequencer phase: round ${r + 1} of ${rounds.length} done`);
  }
  // eth_call: the quote of a V3 swap, in turns of 10 calls per node.
  const quote = plan.workloads.quoteCall();
  const latencies = new Map<Column, number[]>();
  for (let turn = 0; turn * 10 < calls; turn++)
    for (const [name, n] of ordered([...nodes], turn)) {
      const list = latencies.get(name) ?? [];
      list.push(...(await callLatencies(n.url, quote, 10, turn === 0 ? 20 : 2)));
      latencies.set(name, list);
    }
  const head = Number(await rpc<string>(after.url, "eth_blockNumber"));
  const raw: Hex[] = [];
  for (let b = 1; b <= head; b++)
    raw.push(await rpc<Hex>(after.url, "debug_getRawBlock", [`0x${b.toString(16)}`]));
  return { sealed, flashblocks, calls: latencies, chain: { raw, warmHead, loads } };
}

/** Follower replay: each side's `follow` of its own dev chain (this checkout's sequencer). */
export async function followerPhase(
  ctx: PhaseContext,
  afterSide: Side,
  plan: Plan,
  rounds: Rounds,
  genesis: string,
): Promise<{ replay: PathResults; sealed: PathResults }> {
  const devArgs = ["--genesis", genesis, "--block-time", "3600s"];
  const pairs = new Map<Side, { upstream: RunningNode; follower: RunningNode }>();
  for (const side of ctx.sides) {
    // Every upstream runs this checkout's code: both followers replay the same flashblocks.
    const upstream = await startDev(afterSide, devArgs, ctx.loadCpu);
    ctx.children.push(upstream.child);
    await runSetup(upstream.url, plan.setup);
    const follower = await startFollower(side, upstream, ctx.measuredCpu);
    ctx.children.push(follower.child);
    pairs.set(side, { upstream, follower });
  }
  for (const [side, p] of pairs) {
    // The warm-up goes through the follower's replay too.
    await measureFollower(p.upstream, p.follower, plan.warm);
    ctx.log(`follower phase: ${side.name}'s follower caught up and warmed (${p.follower.url})`);
  }
  const replay = new PathResults(
    "follower replay: flashnode follow of a dev chain, until its pending block held the load (flashblocks replayed)",
    "the follower thread",
  );
  const sealed = new PathResults(
    "follower, with the sealed block: until it had the block evm_mine sealed upstream",
    "the follower thread",
  );
  for (const [r, round] of rounds.entries()) {
    for (const [kind, raws] of round)
      for (const side of ordered(ctx.sides, r)) {
        const p = pairs.get(side)!;
        const m = await measureFollower(p.upstream, p.follower, raws);
        replay.add(kind, side.name, m.flashblocks);
        sealed.add(kind, side.name, m.sealed);
      }
    ctx.log(`follower phase: round ${r + 1} of ${rounds.length} done`);
  }
  return { replay, sealed };
}

/**
 * Canonical import: the after side's dev chain exported as RLP; each load's block imported by
 * each side's `flashnode import` into a datadir holding the blocks before it, its CPU less that
 * of the same import run again with nothing left to import (start-up, reading, skipping).
 */
export async function importPhase(
  ctx: PhaseContext,
  chain: SequencerPhase["chain"],
  genesis: string,
): Promise<PathResults> {
  const dir = tempDir("import-files");
  const fileUpTo = (block: number) => {
    const file = join(dir, `chain-${block}.rlp`);
    writeFileSync(
      file,
      Buffer.concat(chain.raw.slice(0, block).map((h) => Buffer.from(h.slice(2), "hex"))),
    );
    return file;
  };
  const datadirs = new Map(ctx.sides.map((s) => [s, tempDir(`import-${s.name}`)]));
  const prefix = fileUpTo(chain.warmHead);
  for (const [side, d] of datadirs) await runImport(side, genesis, d, prefix, ctx.measuredCpu);
  const results = new PathResults(
    "canonical import: flashnode import of the load's block (process CPU less a no-op import of the same file)",
    "the import process",
  );
  for (const [i, { kind, block, txs, gas }] of chain.loads.entries()) {
    const file = fileUpTo(block);
    for (const side of ordered(ctx.sides, i)) {
      const d = datadirs.get(side)!;
      const run = await runImport(side, genesis, d, file, ctx.measuredCpu);
      const noop = await runImport(side, genesis, d, file, ctx.measuredCpu);
      results.add(kind, side.name, {
        txs,
        gas,
        cpu: run.cpuSeconds - noop.cpuSeconds,
        wall: run.wallSeconds - noop.wallSeconds,
        processCpu: run.cpuSeconds,
        runQueueMs: 0,
      });
    }
  }
  return results;
}
