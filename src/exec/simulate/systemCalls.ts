// The system calls a block makes around its transactions (geth's core.PreExecution and
// PostExecution): EIP-4788 beacon root and EIP-2935 parent hash before, EIP-7002 / EIP-7251
// request queues after. Run as geth runs them — by executing the contracts' code — so a state
// override of a system contract behaves as in geth.
import { createHash } from "node:crypto";
import type { Block } from "@ethereumjs/block";
import type { Log } from "@ethereumjs/evm";
import { Address } from "@ethereumjs/util";
import type { VM } from "@ethereumjs/vm";
import { equalBytes, hexToBytes } from "../../util/hex.ts";
import { CallFailedError } from "../callExecutor.ts";
import { SIM_CODE } from "./simTx.ts";

const SYSTEM_ADDRESS = new Address(hexToBytes("0xfffffffffffffffffffffffffffffffffffffffe"));
const BEACON_ROOTS = new Address(hexToBytes("0x000f3df6d732807ef1319fb7b8bb8522d0beac02"));
const HISTORY_STORAGE = new Address(hexToBytes("0x0000f90827f1c53a10cb7a02335b175320002935"));
const WITHDRAWAL_QUEUE = new Address(hexToBytes("0x00000961ef480eb55e80d19ad83579a64c007002"));
const CONSOLIDATION_QUEUE = new Address(hexToBytes("0x0000bbddc7ce488642fb579f8b00f3a590007251"));
const SYSTEM_CALL_GAS = 30_000_000n;
const sha256 = (data: Uint8Array) => new Uint8Array(createHash("sha256").update(data).digest());
const DEPOSIT_TOPIC = hexToBytes(
  "0x649bbc62d0e31342afea4e5cd82d4049e7e1ee912fc0889aa790803be39038c5",
);

/** Mixed-case address as geth prints it in errors. */
const GETH_WITHDRAWAL_QUEUE = "0x00000961Ef480Eb55e80D19ad83579A64c007002";
const GETH_CONSOLIDATION_QUEUE = "0x0000BBdDc7CE488642fb579F8B00f3a590007251";

async function systemCall(vm: VM, block: Block, to: Address, data: Uint8Array) {
  const before = await vm.stateManager.getAccount(SYSTEM_ADDRESS);
  const result = await vm.evm.runCall({
    caller: SYSTEM_ADDRESS,
    to,
    data,
    gasLimit: SYSTEM_CALL_GAS,
    block,
    skipNonceIncrement: true,
  });
  // The system address is only touched: as in geth, it is not left behind in the state.
  if (before !== undefined) await vm.stateManager.putAccount(SYSTEM_ADDRESS, before);
  else if ((await vm.stateManager.getAccount(SYSTEM_ADDRESS)) !== undefined)
    await vm.stateManager.deleteAccount(SYSTEM_ADDRESS);
  await vm.evm.journal.cleanup();
  return result;
}

/** Before the transactions: the parent beacon root (Cancun) and the parent hash (Prague). */
export async function preExecution(
  vm: VM,
  block: Block,
  beaconRoot: Uint8Array | undefined,
  parentHash: Uint8Array,
  prague: boolean,
): Promise<void> {
  if (beaconRoot !== undefined) await systemCall(vm, block, BEACON_ROOTS, beaconRoot);
  if (prague) {
    const r = await systemCall(vm, block, HISTORY_STORAGE, parentHash);
    // geth panics when this call fails.
    if (r.execResult.exceptionError !== undefined)
      throw new CallFailedError("method handler crashed", SIM_CODE.internal, undefined);
  }
}

async function queue(
  vm: VM,
  block: Block,
  address: Address,
  name: string,
  gethAddress: string,
): Promise<Uint8Array> {
  const code = await vm.stateManager.getCode(address);
  const fail = (why: string) =>
    new CallFailedError(`failed to process ${name}: ${why}`, SIM_CODE.server, undefined);
  if (code.length === 0) throw fail(`empty system contract: no code at ${gethAddress}`);
  const r = await systemCall(vm, block, address, new Uint8Array(0));
  const err = r.execResult.exceptionError;
  if (err !== undefined) throw fail(`system call failed to execute: ${err.error}`);
  return r.execResult.returnValue;
}

/** EIP-6110 deposit requests from the block's logs (as geth's ParseDepositLogs, unparsed). */
function depositData(logs: readonly Log[], depositContract: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const [address, topics, data] of logs) {
    if (!equalBytes(address, depositContract) || topics.length === 0) continue;
    if (!equalBytes(topics[0]!, DEPOSIT_TOPIC)) continue;
    out.push(depositRequest(data));
  }
  return out;
}

/** types.DepositLogToRequest: pubkey ‖ credentials ‖ amount ‖ signature ‖ index from the ABI. */
function depositRequest(data: Uint8Array): Uint8Array {
  if (data.length !== 576)
    throw new CallFailedError(
      `failed to parse deposit logs: unable to parse deposit data: deposit wrong length: want 576, have ${data.length}`,
      SIM_CODE.server,
      undefined,
    );
  const at = (offset: number, size: number) => data.subarray(offset + 32, offset + 32 + size);
  return Uint8Array.from([
    ...at(160, 48),
    ...at(256, 32),
    ...at(320, 8),
    ...at(384, 96),
    ...at(512, 8),
  ]);
}

/** After the transactions (Prague): the requests and their EIP-7685 hash. */
export async function postExecution(
  vm: VM,
  block: Block,
  logs: readonly Log[],
  depositContract: Uint8Array,
): Promise<Uint8Array> {
  const requests: Uint8Array[] = [];
  const deposits = depositData(logs, depositContract);
  if (deposits.length > 0) requests.push(Uint8Array.from([0, ...deposits.flatMap((d) => [...d])]));
  const withdrawals = await queue(
    vm,
    block,
    WITHDRAWAL_QUEUE,
    "withdrawal queue",
    GETH_WITHDRAWAL_QUEUE,
  );
  if (withdrawals.length > 0) requests.push(Uint8Array.from([1, ...withdrawals]));
  const consolidations = await queue(
    vm,
    block,
    CONSOLIDATION_QUEUE,
    "consolidation queue",
    GETH_CONSOLIDATION_QUEUE,
  );
  if (consolidations.length > 0) requests.push(Uint8Array.from([2, ...consolidations]));
  // types.CalcRequestsHash: sha256 over the sha256 of each non-empty request.
  const hashes = requests.map((r) => sha256(r));
  const all = new Uint8Array(hashes.length * 32);
  hashes.forEach((h, i) => {
    all.set(h, i * 32);
  });
  return sha256(all);
}
