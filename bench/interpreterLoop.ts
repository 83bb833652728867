// The two interpreter loops side by side on the same signed transactions: the EVM library's own
// (an await per opcode) and flashnode's synchronous one (src/exec/vmInterpreter.ts). Two VMs at
// the same genesis run the FollowLoad workload (bench/contracts: ERC-20 transfers, pair swaps,
// chains of 8 swaps in one transaction) and a loop of 2,000 rounds of arithmetic and memory with
// no state (the interpreter alone), in rounds, the loops alternating which goes first; each round
// is timed in CPU time of this process. Prints µs per transaction and per opcode (the median
// round), the ratio, and checks that both loops used the same gas.
//
// Run: npm run bench:interp -- [--rounds 7] [--batch 40] [--profile DIR]
// (not part of npm test). With --profile, the synchronous loop's rounds are CPU-profiled.
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createFeeMarket1559Tx, type TypedTransaction } from "@ethereumjs/tx";
import { Account, Address, createAddressFromPrivateKey, hexToBytes } from "@ethereumjs/util";
import type { VM } from "@ethereumjs/vm";
import { asm } from "../test/utils/evmAsm.ts";
import {
  followLoadWorkload,
  runAll,
  WORKLOAD_CHAIN_ID,
  workloadVm,
} from "../test/utils/evmWorkload.ts";

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
// The stateless loop: 2,000 rounds of MUL, ADD, MSTORE, MLOAD on the counter.
const COMPUTE = new Address(hexToBytes("0x00000000000000000000000000000000000c0de1"));
const computeCode = asm(
  ["0x07d0", "top:", "JUMPDEST", "DUP1", "0x03", "MUL", "0x05", "ADD", "0x00", "MSTORE"].concat([
    "0x00",
    "MLOAD",
    "POP",
    "0x01",
    "SWAP1",
    "SUB",
    "DUP1",
    "@top",
    "JUMPI",
  ]),
);
const computeKey = hexToBytes(`0x${"42".repeat(32)}`);
for (const loop of LOOPS) {
  vms[loop] = await workloadVm(workload.spec, loop);
  await runAll(vms[loop], workload.setup, 1n);
  const state = vms[loop].stateManager;
  await state.putAccount(COMPUTE, new Account());
  await state.putCode(COMPUTE, hexToBytes(`0x${computeCode}`));
  await state.putAccount(createAddressFromPrivateKey(computeKey), new Account(0n, 10n ** 24n));
}
const computeTxs = Array.from({ length: rounds * batch + 1 }, (_, nonce) =>
  createFeeMarket1559Tx(
    {
      chainId: WORKLOAD_CHAIN_ID,
      nonce,
      maxFeePerGas: 100_000_000_000n,
      gasLimit: 1_000_000n,
      to: COMPUTE,
    },
    { common: vms.library.common },
  ).sign(computeKey),
);

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
  ["arithmetic and memory loop, no state", computeTxs],
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
    `| ${name} | ${opcodes} | ${lib.toFixed(0)} | ${sync.toFixed(0)} | ` +
      `${(lib / opcodes).toFixed(2)} | ${(sync / opcodes).toFixed(2)} | ×${(lib / sync).toFixed(2)} |`,
  );
}

console.log(
  `${rounds} rounds of ${batch} transactions per kind, CPU time of this process, median round\n`,
);
console.log(
  "| transaction | opcodes | library loop µs/tx | sync loop µs/tx | library µs/opcode | sync µs/opcode | speed-up |",
);
console.log("|---|---:|---:|---:|---:|---:|---:|");
for (const row of rows) console.log(row);
