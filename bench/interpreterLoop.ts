// The two interpreter loops side by side on the same signed transactions: the EVM library's own
// (an await per opcode) and flashnode's synchronous one (src/exec/vmInterpreter.ts). Two VMs at
// the same genesis run the FollowLoad workload (bench/contracts: ERC-20 transfers, pair swaps,
// chains of 8 swaps in one transaction) in rounds, the loops alternating which goes first; each
// round is timed in CPU time of this process. Prints µs per transaction and per opcode (the
// median round), the ratio, and checks that both loops used the same gas.
//
// Run: node --import tsx bench/interpreterLoop.ts [--rounds 7] [--batch 40] [--profile DIR]
// (not part of npm test). With --profile, the synchronous loop's rounds are CPU-profiled.
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { TypedTransaction } from "@ethereumjs/tx";
import type { VM } from "@ethereumjs/vm";
import { followLoadWorkload, runAll, workloadVm } from "../test/utils/evmWorkload.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "7" },
    batch: { type: "string", default: "40" },
    profile: { type: "string" },
  },
});
const rounds = Number(values.rounds);
const batch = Number(values.batch);
const LOOPS = ["library", "sync"] as const;
type Loop = (typeof LOOPS)[number];

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const workload = await followLoadWorkload(8, rounds * batch + 1);
const vms = {} as Record<Loop, VM>;
for (const loop of LOOPS) {
  vms[loop] = await workloadVm(workload.spec, loop);
  await runAll(vms[loop], workload.setup, 1n);
}

/** Opcodes per transaction: the first transaction of the kind, counted by a step listener. */
async function opcodesOf(vm: VM, tx: TypedTransaction, block: bigint): Promise<number> {
  let steps = 0;
  const count = () => {
    steps++;
  };
  vm.evm.events?.on("step", count);
  try {
    await runAll(vm, [tx], block);
  } finally {
    vm.evm.events?.off("step", count);
  }
  return steps;
}

const session = new Session();
session.connect();
if (values.profile !== undefined) await session.post("Profiler.enable");

const kinds = [
  ["ERC-20 transfer", workload.transfers],
  ["pair swap", workload.swaps],
  ["8-swap chain", workload.swapChains],
] as const;
let block = 1n;
const rows: string[] = [];
for (const [name, txs] of kinds) {
  block++;
  let opcodes = 0;
  for (const loop of LOOPS) opcodes = await opcodesOf(vms[loop], txs[0]!, block);
  const perTx: Record<Loop, number[]> = { library: [], sync: [] };
  const gas: Record<Loop, bigint> = { library: 0n, sync: 0n };
  for (let r = 0; r < rounds; r++) {
    const part = txs.slice(1 + r * batch, 1 + (r + 1) * batch);
    const order = r % 2 === 0 ? LOOPS : ([...LOOPS].reverse() as Loop[]);
    for (const loop of order) {
      const profiling = values.profile !== undefined && loop === "sync";
      if (profiling) await session.post("Profiler.start");
      const t0 = cpuMs();
      const results = await runAll(vms[loop], part, block);
      const ms = cpuMs() - t0;
      if (profiling) {
        const { profile } = await session.post("Profiler.stop");
        mkdirSync(values.profile!, { recursive: true });
        const file = join(values.profile!, `${name.replaceAll(/\W+/g, "-")}-${r}.cpuprofile`);
        writeFileSync(file, JSON.stringify(profile));
      }
      perTx[loop].push((ms * 1000) / part.length);
      for (const res of results) gas[loop] += res.totalGasSpent;
    }
  }
  if (gas.library !== gas.sync) throw new Error(`${name}: the loops used different gas`);
  const lib = median(perTx.library);
  const sync = median(perTx.sync);
  rows.push(
    `| ${name} | ${opcodes} | ${lib.toFixed(0)} | ${sync.toFixed(0)} | ×${(lib / sync).toFixed(2)} | ` +
      `${((lib - sync) / opcodes).toFixed(2)} |`,
  );
}

console.log(
  `${rounds} rounds of ${batch} transactions per kind, CPU time of this process, median round\n`,
);
console.log(
  "| transaction | opcodes | library loop µs/tx | sync loop µs/tx | speed-up | µs saved per opcode |",
);
console.log("|---|---:|---:|---:|---:|---:|");
for (const row of rows) console.log(row);
