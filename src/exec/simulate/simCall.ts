// One call of a simulated block, as geth's processBlock runs it: sanitized (nonce, gas, gas
// cap), checked, executed by the EVM library, and reported (status, return data, gas, logs,
// error) with its unsigned transaction and receipt.
import type { Block, BlockHeader } from "@ethereumjs/block";
import { Account, Address, bigIntMax, bigIntMin } from "@ethereumjs/util";
import { type RunTxResult, runTx, type VM } from "@ethereumjs/vm";
import type { TransactionView } from "../../chain/blockView.ts";
import type { SimulateCall, SimulatedCall } from "../../services/simulate.ts";
import { bytesToHex, bytesToUnprefixedHex } from "../../util/hex.ts";
import { revertMessage } from "../../util/revert.ts";
import { CallFailedError } from "../callExecutor.ts";
import { alwaysWarm } from "../vmInternals.ts";
import type { SimStateManager } from "./simState.ts";
import type { SimTracer } from "./simTracer.ts";
import { callDefaults, execTx, precheck, prices, SIM_CODE, txType, unsignedTx } from "./simTx.ts";
import { vmErrorMessage } from "./vmErrors.ts";

const ZERO_ADDRESS = new Uint8Array(20);
const UINT64 = 2n ** 64n;

/** The gas all calls of a request may still use (geth's gasBudget). */
export type GasBudget = { remaining: bigint };

/**
 * geth warms the fork's precompile addresses, not the block's (overrides may move or drop
 * them); the EVM library warms the ones it runs. This evens the difference for each call.
 */
export class WarmPrecompiles {
  private block: { cold: string[]; warm: string[] } = { cold: [], warm: [] };
  private call: { cold: string[]; warm: string[] } = { cold: [], warm: [] };

  /** Both key sets are the library's: unprefixed lowercase addresses. */
  setBlock(running: ReadonlySet<string>, fork: ReadonlySet<string>): void {
    this.block = {
      cold: [...running].filter((k) => !fork.has(k)),
      warm: [...fork].filter((k) => !running.has(k)),
    };
  }

  /** Addresses the transaction warms anyway (sender, recipient, coinbase, access list) stay. */
  setCall(warmAnyway: ReadonlySet<string>): void {
    this.call = {
      cold: this.block.cold.filter((k) => !warmAnyway.has(k)),
      warm: this.block.warm,
    };
  }

  /** Called as the transaction's first frame starts (the library has warmed its set). */
  apply(vm: VM): void {
    const { cold, warm } = this.call;
    if (cold.length === 0 && warm.length === 0) return;
    // The library keeps its always-warm set private (exec/vmInternals.ts reaches it).
    const alwaysWarmJournal = alwaysWarm(vm);
    for (const k of cold) alwaysWarmJournal.delete(k);
    for (const k of warm) if (!alwaysWarmJournal.has(k)) alwaysWarmJournal.set(k, new Set());
  }
}

export type CallHost = {
  readonly vm: VM;
  readonly state: SimStateManager;
  readonly tracer: SimTracer;
  readonly warm: WarmPrecompiles;
  readonly validation: boolean;
  readonly chainId: bigint;
};

/** The block a call runs in, and the gas its earlier calls used. */
export type CallBlock = {
  readonly header: BlockHeader;
  readonly evmBlock: Block;
  readonly baseFee: bigint | undefined;
  readonly blobBaseFee: bigint;
  readonly gasUsed: bigint;
};

export type CallOutcome = {
  readonly raw: Uint8Array;
  readonly view: TransactionView;
  readonly from: Uint8Array;
  readonly result: RunTxResult;
  readonly call: SimulatedCall;
  readonly type: number;
};

export async function credit(state: SimStateManager, address: Uint8Array, amount: bigint) {
  if (amount === 0n) return;
  const a = new Address(address);
  const account = (await state.getAccount(a)) ?? new Account();
  account.balance += amount;
  await state.putAccount(a, account);
}

/** geth keeps nonces in 64 bits: one past the maximum wraps to zero. */
async function wrapNonce(state: SimStateManager, sender: Address): Promise<void> {
  const a = await state.getAccount(sender);
  if (a === undefined || a.nonce < UINT64) return;
  a.nonce -= UINT64;
  if (a.isEmpty()) await state.deleteAccount(sender);
  else await state.putAccount(sender, a);
}

function callError(
  result: RunTxResult,
  lastOp: number | undefined,
  capped: boolean,
): SimulatedCall["error"] {
  const err = result.execResult.exceptionError;
  if (err === undefined) return undefined;
  if (err.error === "revert") {
    const data = result.execResult.returnValue;
    return { message: revertMessage(data), code: 3, data: bytesToHex(data) };
  }
  const note = capped ? " (gas limit was capped by the RPC server's global gas cap)" : "";
  return { message: vmErrorMessage(err.error, lastOp) + note, code: SIM_CODE.vmError };
}

export async function runSimCall(
  host: CallHost,
  call: SimulateCall,
  blk: CallBlock,
  budget: GasBudget,
): Promise<CallOutcome> {
  const { state, vm, tracer } = host;
  const { baseFee, blobBaseFee, gasUsed } = blk;
  const from = call.from ?? ZERO_ADDRESS;
  const sender = new Address(from);
  const account = await state.getAccount(sender);
  // geth lets a call without gas use what is left of the block.
  const remaining = blk.header.gasLimit - gasUsed;
  const gas = call.gas ?? remaining;
  if (remaining < gas)
    throw new CallFailedError(
      `block gas limit reached: remaining: ${remaining}, required: ${gas}`,
      SIM_CODE.blockGasLimitReached,
      undefined,
    );
  const capped = bigIntMin(gas, budget.remaining);
  const nonce = call.nonce ?? account?.nonce ?? 0n;
  const c = callDefaults(call, from, nonce, capped, host.chainId, baseFee);
  const { raw, view } = unsignedTx(c);
  const p = prices(c, baseFee);
  const common = vm.common;
  // No fee at all (geth's NoBaseFee with zero prices): the library charges the base fee, so
  // the sender is given it before the run and the unspent part is taken back after.
  const feeless = baseFee !== undefined && !host.validation && p.feeCap === 0n && p.tipCap === 0n;
  const blobFeeCap = c.maxFeePerBlobGas ?? 0n;
  const tx = precheck(
    c,
    p,
    {
      stateNonce: account?.nonce ?? 0n,
      balance: account?.balance ?? 0n,
      validate: host.validation,
      london: baseFee !== undefined,
      cancun: common.isActivatedEIP(4844),
      osaka: common.isActivatedEIP(7594),
      shanghai: common.isActivatedEIP(3860),
      baseFee: baseFee ?? 0n,
      blobBaseFee,
    },
    () =>
      execTx(
        c,
        common,
        feeless ? (baseFee ?? 0n) : p.feeCap,
        !host.validation && blobFeeCap === 0n ? blobBaseFee : blobFeeCap,
      ),
  );
  const lent = feeless ? c.gas * (baseFee ?? 0n) : 0n;
  await credit(state, from, lent);
  if (account?.isContract() === true) state.disguise(sender);
  host.warm.setCall(
    new Set([
      bytesToUnprefixedHex(from),
      bytesToUnprefixedHex(blk.header.coinbase.bytes),
      ...(c.to === undefined ? [] : [bytesToUnprefixedHex(c.to)]),
      ...(c.accessList ?? []).map((e) => bytesToUnprefixedHex(e.address)),
    ]),
  );
  tracer.startTx();
  let result: RunTxResult;
  try {
    result = await runTx(vm, {
      tx,
      block: blk.evmBlock,
      skipNonce: true,
      skipBlockGasLimitValidation: true,
      skipHardForkValidation: true,
      blockGasUsed: gasUsed,
    });
  } catch (e) {
    // geth's checks ran first: what the library still refuses is reported as geth reports
    // an unexpected transaction error.
    throw new CallFailedError(
      `err: ${(e as Error).message} (supplied gas ${c.gas})`,
      SIM_CODE.internal,
      undefined,
    );
  } finally {
    state.disguise(undefined);
  }
  const logs = tracer.endTx();
  const used = result.totalGasSpent;
  if (lent > 0n) {
    const a = (await state.getAccount(sender)) ?? new Account();
    a.balance -= (c.gas - used) * (baseFee ?? 0n);
    await state.putAccount(sender, a);
  }
  await wrapNonce(state, sender);
  if (used > budget.remaining)
    throw new CallFailedError(
      `RPC gas cap exhausted: need ${used}, remaining ${budget.remaining}`,
      SIM_CODE.server,
      undefined,
    );
  budget.remaining -= used;
  const failed = result.execResult.exceptionError !== undefined;
  // geth's peak: the gas used before refunds, or the EIP-7623 floor when that was charged.
  const peak = result.execResult.executionGasUsed + tx.getIntrinsicGas();
  const simCall: SimulatedCall = {
    status: failed ? 0 : 1,
    // geth's ExecutionResult.Return(): nothing when the call failed.
    returnData: failed ? new Uint8Array(0) : result.execResult.returnValue,
    gasUsed: used,
    maxUsedGas: bigIntMax(peak, used),
    logs: logs.map((l) => ({
      address: l.address,
      topics: l.topics,
      data: l.data,
      logIndex: l.logIndex,
    })),
    error: callError(result, tracer.lastTopOp(), capped < gas),
  };
  return { raw, view, from, result, call: simCall, type: txType(c) };
}
