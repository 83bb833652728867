// Real transactions on a real VM, without a node: a dev chain's spec (osaka), its genesis accounts
// in the executor's state (a RecordingStateManager) over an archive head held in memory, and the
// FollowLoad.sol tokens and pair (bench/contracts, solc 0.8.15) traded by the dev accounts. Used
// by the interpreter loops' differential test and their micro-benchmark (bench/interpreterLoop.ts).
import { type Block, createBlock } from "@ethereumjs/block";
import type { EVMOpts } from "@ethereumjs/evm";
import type { TypedTransaction } from "@ethereumjs/tx";
import { Account, Address, hexToBytes } from "@ethereumjs/util";
import { createVM, type RunTxResult, runTx, type VM } from "@ethereumjs/vm";
import type { Hex } from "viem";
import { compileLoadContracts, LoadSigner } from "../../bench/lib/followLoad.ts";
import { devAccounts, devGenesis } from "../../src/chain/devGenesis.ts";
import { type ChainSpec, chainSpecFromGenesis } from "../../src/chain/genesis.ts";
import { decodeRawTransaction } from "../../src/exec/decodeTransaction.ts";
import { RecordingStateManager } from "../../src/exec/recordingStateManager.ts";
import { useSyncInterpreter } from "../../src/exec/vmInternals.ts";
import { keccak256 } from "../../src/util/crypto.ts";
import { MemoryHead } from "./memoryHead.ts";

export const WORKLOAD_CHAIN_ID = 84532n;
const BALANCE = 10n ** 24n;

/** A dev chain (osaka) whose first `accounts` test accounts hold 1,000,000 ETH each. */
export async function workloadSpec(accounts: number): Promise<ChainSpec> {
  return chainSpecFromGenesis(
    devGenesis({
      chainId: WORKLOAD_CHAIN_ID,
      fork: "osaka",
      accounts: devAccounts(accounts),
      balanceWei: BALANCE,
      gasLimit: 60_000_000n,
      timestamp: 1_700_000_000n,
    }),
  );
}

/**
 * A VM at the spec's genesis state (balances, code and storage of its alloc), its frames run by
 * the synchronous interpreter loop or the library's own.
 */
export async function workloadVm(
  spec: ChainSpec,
  loop: "sync" | "library",
  evmOpts: EVMOpts = {},
): Promise<VM> {
  const archive = new MemoryHead();
  const state = new RecordingStateManager(archive.headReads(), archive.trie(), keccak256);
  for (const [hex, a] of spec.alloc) {
    const address = new Address(hexToBytes(`0x${hex}`));
    await state.putAccount(address, new Account(a.nonce, a.balance));
    if (a.code.length > 0) await state.putCode(address, a.code);
    for (const [slot, value] of a.storage) await state.putStorage(address, slot, value);
  }
  const vm = await createVM({
    common: spec.common.copy(),
    stateManager: state,
    setHardfork: true,
    evmOpts,
  });
  if (loop === "sync") useSyncInterpreter(vm.evm);
  return vm;
}

/** Block `number` of the workload chain (what a transaction's context reads). */
export function workloadBlock(vm: VM, number: bigint): Block {
  return createBlock(
    {
      header: {
        number,
        timestamp: 1_700_000_000n + number * 2n,
        gasLimit: 60_000_000n,
        baseFeePerGas: 1_000_000_000n,
        coinbase: hexToBytes("0x4200000000000000000000000000000000000011"),
      },
    },
    { common: vm.common, skipConsensusFormatValidation: true },
  );
}

/** Runs transactions one after another in block `number`. */
export async function runAll(
  vm: VM,
  txs: readonly TypedTransaction[],
  number: bigint,
): Promise<RunTxResult[]> {
  const block = workloadBlock(vm, number);
  const out: RunTxResult[] = [];
  for (const tx of txs) out.push(await runTx(vm, { tx, block, skipHardForkValidation: true }));
  return out;
}

export type Workload = {
  readonly spec: ChainSpec;
  /** Deploys the tokens and the pair, funds and approves (run first, once). */
  readonly setup: TypedTransaction[];
  readonly transfers: TypedTransaction[];
  readonly swaps: TypedTransaction[];
  /** Swaps of 8 rounds back and forth in one transaction. */
  readonly swapChains: TypedTransaction[];
};

/** The FollowLoad workload: `count` of each kind, sent round-robin by `senders` accounts. */
export async function followLoadWorkload(senders: number, count: number): Promise<Workload> {
  const spec = await workloadSpec(senders);
  const signer = new LoadSigner(senders, compileLoadContracts(), Number(WORKLOAD_CHAIN_ID));
  const decode = (raws: Hex[]) => raws.map((r) => decodeRawTransaction(hexToBytes(r), spec.common));
  const setup = decode(await signer.setup(10n ** 24n, 10n ** 22n));
  const kind = async (make: (from: number, i: number) => Promise<Hex>) => {
    const raws: Hex[] = [];
    for (let i = 0; i < count; i++) raws.push(await make(i % senders, i));
    return decode(raws);
  };
  return {
    spec,
    setup,
    transfers: await kind((from, i) => signer.transfer(from, i, 80_000n)),
    swaps: await kind((from, i) => signer.swap(from, i, 200_000n)),
    swapChains: await kind((from) => signer.swapRounds(from, 8, 1_500_000n)),
  };
}
