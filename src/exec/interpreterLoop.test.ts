// The synchronous interpreter loop (vmInterpreter.ts) against the EVM library's own, on the same
// transactions from the same state: random programs (test/utils/evmPrograms.ts) and the
// FollowLoad tokens and pair (bench/contracts, solc 0.8.15). Every transaction's gas, refund,
// return data, logs, error and receipt must be the same, and so must the state root after it
// (accounts, code and storage). A third VM runs the synchronous loop with the eth_call deadline
// opcodes (deadlineOpcodes.ts), the opcode table's custom entries.
//
// FLASHNODE_INTERP_FUZZ_CASES (default 40) and FLASHNODE_INTERP_FUZZ_SEED (default 1) set the
// random part's size and seed (docs/fuzz.md).
import assert from "node:assert/strict";
import { test } from "node:test";
import { createEOACode7702Tx, createFeeMarket1559Tx, type TypedTransaction } from "@ethereumjs/tx";
import {
  Account,
  Address,
  bigIntToHex,
  bytesToHex,
  createAddressFromPrivateKey,
  eoaCode7702SignAuthorization,
  hexToBytes,
} from "@ethereumjs/util";
import { type RunTxResult, runTx, type VM } from "@ethereumjs/vm";
import { asm } from "../../test/utils/evmAsm.ts";
import { randomProgram } from "../../test/utils/evmPrograms.ts";
import { type ProgramContext, Rng } from "../../test/utils/evmProgramWriter.ts";
import {
  followLoadWorkload,
  WORKLOAD_CHAIN_ID,
  workloadBlock,
  workloadSpec,
  workloadVm,
} from "../../test/utils/evmWorkload.ts";
import { devAccounts } from "../chain/devGenesis.ts";
import { deadlineOpcodes } from "./deadlineOpcodes.ts";
import { syncInterpreterRuns } from "./vmInternals.ts";

const CASES = Number(process.env.FLASHNODE_INTERP_FUZZ_CASES ?? 40);
const SEED = Number(process.env.FLASHNODE_INTERP_FUZZ_SEED ?? 1);
const ACCOUNTS = 6;
const CONTRACTS_PER_CASE = 4;
const TXS_PER_CASE = 6;

type Vms = { library: VM; sync: VM; deadline: VM };

async function threeVms(spec: Awaited<ReturnType<typeof workloadSpec>>): Promise<Vms> {
  return {
    library: await workloadVm(spec, "library"),
    sync: await workloadVm(spec, "sync"),
    deadline: await workloadVm(spec, "sync", {
      customOpcodes: deadlineOpcodes(spec.common, Number.MAX_SAFE_INTEGER),
    }),
  };
}

/** What a transaction did, as comparable data. */
function outcome(r: RunTxResult | Error): unknown {
  if (r instanceof Error) return { thrown: r.message };
  const logs = (r.execResult.logs ?? []).map(([address, topics, data]) => [
    bytesToHex(address),
    topics.map((t) => bytesToHex(t)),
    bytesToHex(data),
  ]);
  return {
    totalGasSpent: r.totalGasSpent,
    gasRefund: r.gasRefund,
    amountSpent: r.amountSpent,
    executionGasUsed: r.execResult.executionGasUsed,
    error: r.execResult.exceptionError?.error,
    returnValue: bytesToHex(r.execResult.returnValue),
    logs,
    createdAddress: r.createdAddress?.toString(),
    // Where the top frame stopped (a simulated call's error names the opcode).
    opCode: r.execResult.runState?.opCode,
    programCounter: r.execResult.runState?.programCounter,
    receipt: {
      cumulativeBlockGasUsed: r.receipt.cumulativeBlockGasUsed,
      bitvector: bytesToHex(r.receipt.bitvector),
      status: "status" in r.receipt ? r.receipt.status : undefined,
    },
  };
}

/** Runs `tx` on every VM; asserts the same outcome and the same state root after it. */
async function runEverywhere(vms: Vms, tx: TypedTransaction, block: bigint, what: string) {
  const outcomes: unknown[] = [];
  const roots: string[] = [];
  for (const vm of Object.values(vms)) {
    const r = await runTx(vm, { tx, block: workloadBlock(vm, block), skipHardForkValidation: true })
      .then((ok) => ok)
      .catch((e: Error) => e);
    outcomes.push(outcome(r));
    roots.push(bytesToHex(await vm.stateManager.getStateRoot()));
  }
  assert.deepEqual(outcomes[1], outcomes[0], `${what}: sync loop differs from the library's`);
  assert.deepEqual(outcomes[2], outcomes[0], `${what}: sync loop with deadline opcodes differs`);
  assert.equal(roots[1], roots[0], `${what}: state root after the sync loop differs`);
  assert.equal(roots[2], roots[0], `${what}: state root with deadline opcodes differs`);
  return outcomes[0] as { error?: string; thrown?: string };
}

const addressOf = (v: bigint) => new Address(hexToBytes(`0x${v.toString(16).padStart(40, "0")}`));
const word = (v: bigint) => hexToBytes(`0x${v.toString(16).padStart(64, "0")}`);

async function nonceOf(vm: VM, address: Address): Promise<bigint> {
  return (await vm.stateManager.getAccount(address))?.nonce ?? 0n;
}

test("random programs run alike through the library's loop and the synchronous one", async () => {
  const spec = await workloadSpec(ACCOUNTS);
  const vms = await threeVms(spec);
  const keys = devAccounts(ACCOUNTS).map((a) => hexToBytes(a.privateKey as `0x${string}`));
  const senders = keys.map((k) => createAddressFromPrivateKey(k));
  const seen = { errors: new Set<string>(), ok: 0, thrown: 0 };
  for (let c = 0; c < CASES; c++) {
    const rng = new Rng(SEED * 1_000_003 + c);
    const contracts = Array.from({ length: CONTRACTS_PER_CASE }, (_, k) => {
      return (0xc0de0000n << 128n) | (BigInt(c) << 16n) | BigInt(k);
    });
    const ctx: ProgramContext = {
      contracts,
      accounts: senders.map((a) => BigInt(a.toString())),
    };
    for (const contract of contracts) {
      const code = randomProgram(rng, ctx);
      const balance = rng.chance(0.5) ? 0n : BigInt(rng.int(10_000));
      // Slots 0–2 set before the transactions: SSTORE's original-value rules need them.
      const slots = rng.chance(0.6) ? [1n, BigInt(rng.int(3)), rng.word()] : [];
      for (const vm of Object.values(vms)) {
        const state = vm.stateManager;
        await state.putAccount(addressOf(contract), new Account(1n, balance));
        await state.putCode(addressOf(contract), code);
        for (const [i, v] of slots.entries())
          if (v !== 0n) await state.putStorage(addressOf(contract), word(BigInt(i)), word(v));
      }
    }
    for (let t = 0; t < TXS_PER_CASE; t++) {
      const from = rng.int(ACCOUNTS);
      const nonce = await nonceOf(vms.library, senders[from]!);
      const target = rng.int(10);
      const data = rng.bytes(rng.pick([0, 4, 32, 36, 68]));
      const base = {
        chainId: WORKLOAD_CHAIN_ID,
        nonce,
        maxFeePerGas: 2_000_000_000n,
        maxPriorityFeePerGas: 1n,
        gasLimit: BigInt(rng.pick([30_000, 100_000, 300_000, 300_000, 1_000_000])),
        value: rng.chance(0.7) ? 0n : BigInt(rng.int(10_000)),
      };
      let tx: TypedTransaction;
      if (target === 0) {
        // A contract creation whose init code is a random program.
        tx = createFeeMarket1559Tx(
          { ...base, data: randomProgram(rng, ctx) },
          { common: vms.library.common },
        ).sign(keys[from]!);
      } else if (target === 1) {
        // EIP-7702: another account delegates to one of the contracts, then is called.
        const authority = (from + 1 + rng.int(ACCOUNTS - 1)) % ACCOUNTS;
        const auth = eoaCode7702SignAuthorization(
          {
            chainId: bigIntToHex(rng.chance(0.8) ? WORKLOAD_CHAIN_ID : 0n),
            address: addressOf(rng.pick(contracts)).toString(),
            nonce: bigIntToHex(await nonceOf(vms.library, senders[authority]!)),
          },
          keys[authority]!,
        );
        tx = createEOACode7702Tx(
          { ...base, to: senders[authority]!, data, authorizationList: [auth] },
          { common: vms.library.common },
        ).sign(keys[from]!);
      } else {
        const to = target < 8 ? rng.pick(contracts) : rng.pick(ctx.accounts);
        tx = createFeeMarket1559Tx(
          { ...base, to: addressOf(to), data },
          { common: vms.library.common },
        ).sign(keys[from]!);
      }
      const o = await runEverywhere(vms, tx, BigInt(2 + c), `seed ${SEED} case ${c} tx ${t}`);
      if (o.thrown !== undefined) seen.thrown++;
      else if (o.error === undefined) seen.ok++;
      else seen.errors.add(o.error.split(" at ")[0]!);
    }
  }
  // The programs reach deep enough: transactions succeed and fail in the ways that matter.
  assert.ok(seen.ok > CASES, `only ${seen.ok} transactions succeeded`);
  for (const e of ["revert", "out of gas", "invalid opcode", "stack underflow", "invalid JUMP"])
    assert.ok(seen.errors.has(e), `no transaction ended in ${e}: ${[...seen.errors].join(", ")}`);
  assert.ok(syncInterpreterRuns(vms.sync.evm) > CASES, "the sync loop did not run");
  assert.ok(syncInterpreterRuns(vms.deadline.evm) > CASES, "the sync loop did not run");
  assert.equal(syncInterpreterRuns(vms.library.evm), 0);
});

test("ERC-20 transfers and swaps run alike through both loops", async () => {
  const w = await followLoadWorkload(4, 6);
  const vms = await threeVms(w.spec);
  let block = 1n;
  for (const [name, txs] of [
    ["setup", w.setup],
    ["transfer", w.transfers],
    ["swap", w.swaps],
    ["swap chain", w.swapChains],
  ] as const) {
    block++;
    for (const [i, tx] of txs.entries()) {
      const o = await runEverywhere(vms, tx, block, `${name} ${i}`);
      assert.equal(o.error, undefined, `${name} ${i} failed: ${o.error}`);
    }
  }
  assert.ok(syncInterpreterRuns(vms.sync.evm) > 0);
});

test("a traced frame and FLASHNODE_EVM_LOOP=library run the library's loop", async () => {
  const spec = await workloadSpec(1);
  const key = hexToBytes(devAccounts(1)[0]!.privateKey as `0x${string}`);
  const contract = addressOf(0xc0de0001n);
  // Three rounds of a loop that stores its counter.
  const code = hexToBytes(
    `0x${asm(["0x03", "top:", "JUMPDEST", "DUP1", "DUP1", "SSTORE", "0x01", "SWAP1", "SUB", "DUP1", "@top", "JUMPI"])}`,
  );
  const call = async (vm: VM) => {
    await vm.stateManager.putAccount(contract, new Account());
    await vm.stateManager.putCode(contract, code);
    const nonce = await nonceOf(vm, createAddressFromPrivateKey(key));
    const tx = createFeeMarket1559Tx(
      {
        chainId: WORKLOAD_CHAIN_ID,
        nonce,
        maxFeePerGas: 2_000_000_000n,
        gasLimit: 200_000n,
        to: contract,
      },
      { common: vm.common },
    ).sign(key);
    return runTx(vm, { tx, block: workloadBlock(vm, 1n), skipHardForkValidation: true });
  };

  const vm = await workloadVm(spec, "sync");
  let steps = 0;
  const onStep = () => {
    steps++;
  };
  vm.evm.events?.on("step", onStep);
  const traced = await call(vm);
  vm.evm.events?.off("step", onStep);
  assert.equal(traced.execResult.exceptionError, undefined);
  assert.equal(syncInterpreterRuns(vm.evm), 0, "a traced frame ran the sync loop");
  assert.equal(steps, 1 + 3 * 10, "a step event for each opcode run");
  await call(vm);
  assert.equal(syncInterpreterRuns(vm.evm), 1);

  process.env.FLASHNODE_EVM_LOOP = "library";
  try {
    const reference = await workloadVm(spec, "sync");
    assert.equal((await call(reference)).execResult.exceptionError, undefined);
    assert.equal(syncInterpreterRuns(reference.evm), 0);
  } finally {
    delete process.env.FLASHNODE_EVM_LOOP;
  }
});
