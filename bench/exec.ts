// Issue 31's instrument: transaction execution alone, per path and per workload, flashnode beside
// anvil in the same run, and (--before REF) beside another commit of flashnode, interleaved.
//   paths      sequencer (dev, a load sent in bulk, until sealed), follower replay (follow of a dev
//              chain, flashblocks replayed), canonical import (flashnode import of the blocks),
//              eth_call (a warm quote of a V3 swap), a burst of 600 mixed transactions sent at once
//              to dev --ethereum, automine (send → receipt, one at a time);
//   workloads  eth, erc20, v2, v3 (crossing ticks), chain (multi-hop swap chains), on Uniswap V2 and
//              V3 deployed from their npm artifacts (bench/lib/uniswapSetup.ts);
//   figures    µs of CPU per transaction, Mgas per CPU-second, Mgas per wall second; medians of the
//              rounds, which alternate which side goes first; ratios after/before and after/anvil.
// Every node is measured through its CLI, JSON-RPC and /proc only, so any commit can be the
// "before" side (a git worktree of it under the OS temporary folder, cached by commit hash).
// By default (not with --no-pin) the measured processes run on CPU 1 (taskset -c 1) and the
// bench and the load (a followed chain's sequencer) on CPU 0.
// Run: npm run bench:exec [-- --before main --rounds 3 --txs 200 --phases sequencer,follower,…
//      --cpu-prof DIR]
import type { ChildProcess } from "node:child_process";
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";
import type { Hex } from "viem";
import { pin } from "./compare/peers.ts";
import { stealMs } from "./compare/wrk.ts";
import { beforeCheckout } from "./lib/beforeWorktree.ts";
import { BIN } from "./lib/devChain.ts";
import { burstPhase, printAccept, printAutomine } from "./lib/execBurst.ts";
import { type Side, stopNode, writeOpGenesis } from "./lib/execNodes.ts";
import { followerPhase, importPhase, type PhaseContext, sequencerPhase } from "./lib/execPhases.ts";
import { signPlan, signRounds, signSwaps } from "./lib/execPlan.ts";
import { printLatencies, printPath } from "./lib/execReport.ts";
import { WORKLOAD_KINDS, type WorkloadKind } from "./lib/execWorkload.ts";

const PHASES = ["sequencer", "follower", "import", "call", "burst", "automine"] as const;
const { values } = parseArgs({
  options: {
    before: { type: "string" },
    rounds: { type: "string", default: "3" },
    txs: { type: "string", default: "200" },
    "chain-txs": { type: "string", default: "50" },
    burst: { type: "string", default: "600" },
    swaps: { type: "string", default: "60" },
    calls: { type: "string", default: "50" },
    senders: { type: "string", default: "30" },
    workloads: { type: "string", default: "eth,erc20,v2,v3,chain" },
    phases: { type: "string", default: PHASES.join(",") },
    "max-minutes": { type: "string", default: "60" },
    "no-pin": { type: "boolean", default: false },
    "cpu-prof": { type: "string" },
  },
});
const ROUNDS = Number(values.rounds);
const TXS = Number(values.txs);
const CHAIN_TXS = Number(values["chain-txs"]);
const SENDERS = Number(values.senders);
const PIN = !values["no-pin"];
const phases = new Set(values.phases.split(","));
for (const p of phases)
  if (!(PHASES as readonly string[]).includes(p))
    throw new Error(`--phases: ${p} is not one of ${PHASES.join(", ")}`);
const kinds = values.workloads.split(",") as WorkloadKind[];
for (const k of kinds)
  if (!WORKLOAD_KINDS.includes(k) || k === "mixed")
    throw new Error(`--workloads: ${k} is not one of eth, erc20, v2, v3, chain`);

const log = (line: string) => console.error(`[bench:exec] ${line}`);
const uptime = () => execFileSync("uptime", { encoding: "utf8" }).trim();
console.log(`machine at start: ${uptime()}`);
const children: ChildProcess[] = [];
// Bounded whatever happens: past the limit every child is killed and the bench exits.
const watchdog = setTimeout(() => {
  console.error(`bench:exec: ${values["max-minutes"]} minutes passed; stopping`);
  for (const c of children) c.kill("SIGKILL");
  process.exit(1);
}, Number(values["max-minutes"]) * 60_000);
watchdog.unref();
// Interrupted (Ctrl-C, kill): the nodes go with the bench.
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => {
    for (const c of children) c.kill("SIGKILL");
    process.exit(130);
  });
if (PIN) pin(process.pid, "0");

// --cpu-prof DIR: the after side's dev nodes write a .cpuprofile per thread and process there
// (bench/profileTop.ts summarises one).
const cpuProf = values["cpu-prof"];
const sides: Side[] = [
  {
    name: "after",
    bin: BIN,
    ...(cpuProf === undefined ? {} : { nodeFlags: ["--cpu-prof", "--cpu-prof-dir", cpuProf] }),
  },
];
if (values.before !== undefined)
  sides.push({ name: "before", bin: beforeCheckout(values.before, log).bin });
const ctx: PhaseContext = {
  sides,
  measuredCpu: PIN ? "1" : undefined,
  loadCpu: PIN ? "0" : undefined,
  senders: SENDERS,
  children,
  log,
};
console.log(
  `sides: after = this checkout${values.before === undefined ? "" : `, before = ${values.before}`}, anvil; ${ROUNDS} rounds of ${kinds.map((k) => `${k} ×${k === "chain" ? CHAIN_TXS : TXS}`).join(", ")}; ${SENDERS} senders; ${PIN ? "measured processes on CPU 1, bench and load on CPU 0" : "nothing pinned"}`,
);
const steal0 = stealMs();
const started = performance.now();

try {
  const plan = await signPlan(SENDERS);
  const rounds = await signRounds(plan, ROUNDS, kinds, (k) => (k === "chain" ? CHAIN_TXS : TXS));
  const genesis = await writeOpGenesis(SENDERS + 1);
  if (phases.has("sequencer") || phases.has("import") || phases.has("call")) {
    const s = await sequencerPhase(ctx, plan, rounds, genesis, Number(values.calls));
    await Promise.all(children.splice(0).map(stopNode));
    if (phases.has("sequencer")) {
      printPath(s.sealed);
      printPath(s.flashblocks);
    }
    if (phases.has("call"))
      printLatencies(
        "eth_call: a warm quote of a V3 swap (QuoterV2, crossing ticks) at latest",
        s.calls,
      );
    if (phases.has("import")) printPath(await importPhase(ctx, s.chain, genesis));
  }
  if (phases.has("follower")) {
    const f = await followerPhase(ctx, sides[0]!, await signPlan(SENDERS), rounds, genesis);
    await Promise.all(children.splice(0).map(stopNode));
    printPath(f.replay);
    printPath(f.sealed);
  }
  if (phases.has("burst") || phases.has("automine")) {
    // A plan of its own: these chains get the set-up and warm-up, then the bursts and swaps.
    const own = await signPlan(SENDERS);
    const bursts: Hex[][] = [];
    if (phases.has("burst"))
      for (let r = 0; r < ROUNDS; r++)
        bursts.push(await own.workloads.makeWorkload("mixed", Number(values.burst)));
    const swaps = phases.has("automine") ? await signSwaps(own, Number(values.swaps)) : [];
    const b = await burstPhase(ctx, own, bursts, swaps);
    await Promise.all(children.splice(0).map(stopNode));
    if (phases.has("burst")) {
      printPath(b.execution);
      printAccept(b.accept);
    }
    if (phases.has("automine")) printAutomine(b.automine);
  }
} finally {
  await Promise.all(children.splice(0).map(stopNode));
}
console.log(
  `\nmachine at end: ${uptime()}; steal ${stealMs() - steal0} ms; ${((performance.now() - started) / 60_000).toFixed(1)} min`,
);
