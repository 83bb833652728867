// eth_call and eth_estimateGas on the EVM library, over flat state (never the trie), with
// geth's semantics: no base fee when no gas price is given, reverts as code 3 with their data,
// estimation by binary search within 1.5% of the minimum, the RPC gas cap and eth_call's timeout.
import { createBlock } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { createTx, type TypedTransaction } from "@ethereumjs/tx";
import { Address, createContractAddress } from "@ethereumjs/util";
import { runTx } from "@ethereumjs/vm";
import type { StateView } from "../pending/pendingState.ts";
import type { AccessListResult, CallRequest, CallResult } from "../services/callRequest.ts";
import { RpcError } from "../util/errors.ts";
import { bytesToHex, bytesToUnprefixedHex, hexToBytes, quantity } from "../util/hex.ts";
import { revertMessage } from "../util/revert.ts";
import { type CallLimits, DEFAULT_CALL_LIMITS, EvmTimeoutError, goDuration } from "./callLimits.ts";
import { type CallBlockEnv, CallVms, type KeptVm } from "./callVms.ts";
import type { FlatStateManager } from "./flatStateManager.ts";

/** The block a call executes in (header fields the EVM reads). */
export type { CallBlockEnv } from "./callVms.ts";

/** A failed call or estimate; `code` 3 with `data` for reverts, -32000 otherwise (geth). */
export class CallFailedError extends RpcError {
  override readonly code = "CALL_FAILED";
  constructor(message: string, rpcCode: number, data: string | undefined) {
    super(rpcCode, message, data);
  }
}

/** The EIP-7825 per-transaction cap from Osaka on (Amsterdam's EIP-8037 lifts it). */
export const TX_GAS_CAP_7825 = 2n ** 24n;
/** geth's default RPC gas cap (`--rpc-gascap`). */
export const RPC_GAS_CAP = DEFAULT_CALL_LIMITS.gasCap;
/** geth's gas for a call without gas and without a cap: half of 2^64. */
const UNCAPPED_CALL_GAS = 2n ** 63n - 1n;
const ESTIMATE_ERROR_RATIO = 0.015;
/** Rounds of eth_createAccessList before it gives up on a list that keeps changing. */
const ACCESS_LIST_ROUNDS = 16;

type AccessList = AccessListResult["accessList"];
const ZERO_ADDRESS = new Uint8Array(20);

/** The EVM library's pre-execution failures, worded as geth words them. */
export function txFailure(message: string, req: CallRequest): string {
  const from = bytesToHex(req.from ?? ZERO_ADDRESS);
  if (/enough funds|balance/i.test(message))
    return `insufficient funds for gas * price + value: address ${from}`;
  if (/base fee/i.test(message)) return "max fee per gas less than block base fee";
  if (/intrinsic|gas limit is too low/i.test(message)) return "intrinsic gas too low";
  return message.split(" (block")[0] ?? message;
}

const txGasCapped = (common: Common) => common.isActivatedEIP(7825) && !common.isActivatedEIP(8037);

/** geth: a call that names no gas price runs with no base fee. */
export function callWithoutFee(req: CallRequest): boolean {
  return req.gasPrice === undefined && req.maxFeePerGas === undefined;
}

/** The block a call runs in; its gas limit is the block's, or `gasLimit` if that is higher. */
export function callBlock(env: CallBlockEnv, gasLimit: bigint, noFee: boolean, common: Common) {
  return createBlock(
    {
      header: {
        number: env.number,
        timestamp: env.timestamp,
        gasLimit: env.gasLimit > gasLimit ? env.gasLimit : gasLimit,
        coinbase: env.coinbase,
        mixHash: env.prevRandao,
        ...(env.baseFeePerGas === undefined
          ? {}
          : { baseFeePerGas: noFee ? 0n : env.baseFeePerGas }),
        ...(env.excessBlobGas === undefined ? {} : { excessBlobGas: env.excessBlobGas }),
      },
    },
    { common, skipConsensusFormatValidation: true },
  );
}

/** The call as an unsigned transaction from `from` (the EVM library only asks it for that). */
export function callTransaction(
  req: CallRequest,
  gasLimit: bigint,
  nonce: bigint,
  common: Common,
): TypedTransaction {
  const base = {
    nonce,
    gasLimit,
    value: req.value ?? 0n,
    data: req.data ?? new Uint8Array(0),
    ...(req.to === undefined ? {} : { to: new Address(req.to) }),
    ...(req.accessList === undefined
      ? {}
      : {
          accessList: req.accessList.map((e) => ({
            address: bytesToHex(e.address),
            storageKeys: e.storageKeys.map(bytesToHex),
          })),
        }),
  };
  const fees = {
    maxFeePerGas: req.maxFeePerGas ?? 0n,
    maxPriorityFeePerGas: req.maxPriorityFeePerGas ?? 0n,
  };
  const tx =
    req.authorizationList !== undefined
      ? createTx(
          {
            ...base,
            ...fees,
            type: 4,
            authorizationList: req.authorizationList.map((a) => ({
              chainId: quantity(a.chainId),
              address: bytesToHex(a.address),
              nonce: quantity(a.nonce),
              yParity: quantity(a.yParity),
              r: quantity(a.r),
              s: quantity(a.s),
            })),
          },
          { common, freeze: false },
        )
      : req.gasPrice !== undefined || !common.isActivatedEIP(1559)
        ? createTx(
            { ...base, type: req.accessList === undefined ? 0 : 1, gasPrice: req.gasPrice ?? 0n },
            { common, freeze: false },
          )
        : createTx(
            {
              ...base,
              type: 2,
              maxFeePerGas: req.maxFeePerGas ?? 0n,
              maxPriorityFeePerGas: req.maxPriorityFeePerGas ?? 0n,
            },
            { common, freeze: false },
          );
  const from = new Address(req.from ?? ZERO_ADDRESS);
  Object.assign(tx, { getSenderAddress: () => from, isSigned: () => true });
  return tx;
}

export class CallExecutor {
  constructor(
    private readonly common: Common,
    private readonly limits: CallLimits = DEFAULT_CALL_LIMITS,
  ) {
    this.vms = new CallVms(common);
  }

  private readonly vms: CallVms;

  /**
   * geth's CallDefaults for eth_call and eth_createAccessList: the request's gas lowered to the
   * cap, or the cap when it has none. Neither the block's gas limit nor EIP-7825 bounds a call.
   */
  private callGas(req: CallRequest): bigint {
    const cap = this.limits.gasCap;
    if (req.gas === undefined) return cap > 0n ? cap : UNCAPPED_CALL_GAS;
    return cap > 0n && req.gas > cap ? cap : req.gas;
  }

  private buildTx(
    req: CallRequest,
    gasLimit: bigint,
    nonce: bigint,
    common: Common,
  ): TypedTransaction {
    // The library refuses a transaction above EIP-7825's cap when it is built; a call may go
    // past it (geth skips transaction checks for calls), so the limit is set after.
    const buildLimit =
      txGasCapped(common) && gasLimit > TX_GAS_CAP_7825 ? TX_GAS_CAP_7825 : gasLimit;
    const tx = callTransaction(req, buildLimit, nonce, common);
    if (buildLimit !== gasLimit) Object.assign(tx, { gasLimit });
    return tx;
  }

  private async attempt(
    kept: KeptVm,
    req: CallRequest,
    env: CallBlockEnv,
    gasLimit: bigint,
    reportAccessList = false,
  ): Promise<CallResult & { gasSpent: bigint; accessList?: AccessList }> {
    const { vm, state } = kept;
    // GASLIMIT is the block's, whatever the call's gas (geth).
    const block = callBlock(env, 0n, callWithoutFee(req), vm.common);
    const account = await state.getAccount(new Address(req.from ?? ZERO_ADDRESS));
    const tx = this.buildTx(req, gasLimit, req.nonce ?? account?.nonce ?? 0n, vm.common);
    await state.checkpoint();
    // geth's calls skip the EIP-3607 sender check: a contract may be `from`.
    state.hideSenderCode(tx.getSenderAddress());
    try {
      const r = await runTx(vm, {
        tx,
        block,
        skipNonce: true,
        skipBlockGasLimitValidation: true,
        skipHardForkValidation: true,
        reportAccessList,
      });
      const accessList = r.accessList?.map((e) => ({
        address: hexToBytes(e.address),
        storageKeys: e.storageKeys.map((k) => hexToBytes(k)),
      }));
      const touched = accessList === undefined ? {} : { accessList };
      const error = r.execResult.exceptionError;
      const returnData = r.execResult.returnValue;
      if (error === undefined)
        return {
          ok: true,
          returnData,
          gasUsed: r.totalGasSpent,
          gasSpent: r.totalGasSpent,
          ...touched,
        };
      const reverted = error.error === "revert";
      return {
        ok: false,
        reverted,
        returnData,
        error: reverted ? "execution reverted" : error.error,
        gasSpent: r.totalGasSpent,
        ...touched,
      };
    } catch (e) {
      kept.clean = false;
      if (e instanceof EvmTimeoutError) throw e;
      throw new CallFailedError(txFailure((e as Error).message, req), -32000, undefined);
    } finally {
      state.hideSenderCode(undefined);
      await state.revert();
    }
  }

  static failure(result: CallResult): CallFailedError | undefined {
    if (result.ok) return undefined;
    if (result.reverted) {
      return new CallFailedError(
        revertMessage(result.returnData),
        3,
        bytesToHex(result.returnData),
      );
    }
    return new CallFailedError(result.error, -32000, undefined);
  }

  /** eth_call; past --rpc-evmtimeout the run is aborted with geth's error. */
  async call(req: CallRequest, source: StateView, env: CallBlockEnv): Promise<CallResult> {
    const timeout = this.limits.evmTimeoutMs;
    const deadline = timeout > 0 ? performance.now() + timeout : undefined;
    const kept = await this.vms.take(source, env, deadline);
    try {
      const { gasSpent: _, ...result } = await this.attempt(kept, req, env, this.callGas(req));
      return result;
    } catch (e) {
      if (!(e instanceof EvmTimeoutError)) throw e;
      throw new CallFailedError(
        `execution aborted (timeout = ${goDuration(timeout)})`,
        -32000,
        undefined,
      );
    } finally {
      this.vms.release(kept);
    }
  }

  /**
   * geth's eth_createAccessList: run the call with the list found so far until the list it
   * touches is the list it ran with. Like geth's tracer, the sender, the recipient (or the
   * created contract) and precompiles are left out unless storage of theirs was touched.
   */
  async createAccessList(
    req: CallRequest,
    source: StateView,
    env: CallBlockEnv,
  ): Promise<AccessListResult> {
    const kept = await this.vms.take(source, env);
    try {
      return await this.accessListRounds(kept, req, env);
    } finally {
      this.vms.release(kept);
    }
  }

  private async accessListRounds(
    kept: KeptVm,
    req: CallRequest,
    env: CallBlockEnv,
  ): Promise<AccessListResult> {
    const { vm, state } = kept;
    const gas = this.callGas(req);
    const from = req.from ?? ZERO_ADDRESS;
    const nonce = req.nonce ?? (await state.getAccount(new Address(from)))?.nonce ?? 0n;
    const to = req.to ?? createContractAddress(new Address(from), nonce).bytes;
    const excluded = new Set([
      bytesToUnprefixedHex(from),
      bytesToUnprefixedHex(to),
      ...vm.evm.precompiles.keys(),
    ]);
    const keep = (list: AccessList): AccessList =>
      list.filter(
        (e) => e.storageKeys.length > 0 || !excluded.has(bytesToUnprefixedHex(e.address)),
      );
    const key = (list: AccessList) =>
      list
        .map((e) => `${bytesToHex(e.address)}:${e.storageKeys.map(bytesToHex).sort().join(",")}`)
        .sort()
        .join(";");
    let list = keep(req.accessList ?? []);
    for (let round = 0; ; round++) {
      const r = await this.attempt(kept, { ...req, nonce, accessList: list }, env, gas, true);
      const touched = keep(r.accessList ?? []);
      if (key(touched) === key(list) || round === ACCESS_LIST_ROUNDS)
        return { accessList: list, gasUsed: r.gasSpent, error: r.ok ? undefined : r.error };
      list = touched;
    }
  }

  /**
   * geth's upper bound of the search: the request's gas (at least 21000) or the block's gas
   * limit, within EIP-7825's cap, what the sender's balance pays for at the fee cap, and the RPC
   * gas cap.
   */
  private async estimateCeiling(
    req: CallRequest,
    state: FlatStateManager,
    env: CallBlockEnv,
    common: Common,
  ): Promise<bigint> {
    let hi = req.gas !== undefined && req.gas >= 21000n ? req.gas : env.gasLimit;
    if (txGasCapped(common) && hi > TX_GAS_CAP_7825) hi = TX_GAS_CAP_7825;
    const feeCap = req.gasPrice ?? req.maxFeePerGas ?? 0n;
    if (feeCap > 0n) {
      const balance =
        (await state.getAccount(new Address(req.from ?? ZERO_ADDRESS)))?.balance ?? 0n;
      const value = req.value ?? 0n;
      if (value >= balance)
        throw new CallFailedError("insufficient funds for transfer", -32000, undefined);
      const allowance = (balance - value) / feeCap;
      if (hi > allowance) hi = allowance;
    }
    const cap = this.limits.gasCap;
    return cap > 0n && hi > cap ? cap : hi;
  }

  async estimateGas(req: CallRequest, source: StateView, env: CallBlockEnv): Promise<bigint> {
    const kept = await this.vms.take(source, env);
    try {
      return await this.estimate(kept, req, env);
    } finally {
      this.vms.release(kept);
    }
  }

  private async estimate(kept: KeptVm, req: CallRequest, env: CallBlockEnv): Promise<bigint> {
    const { vm, state } = kept;
    let hi = await this.estimateCeiling(req, state, env, vm.common);
    const first = await this.attempt(kept, req, env, hi);
    const failure = CallExecutor.failure(first);
    if (failure !== undefined) {
      if (failure.rpcCode === 3) throw failure;
      throw new CallFailedError(
        first.ok || first.error !== "out of gas"
          ? failure.message
          : `gas required exceeds allowance (${hi})`,
        -32000,
        undefined,
      );
    }
    let lo = first.gasSpent - 1n;
    // A plain transfer needs exactly its intrinsic gas: no search (as geth).
    if (
      (req.data === undefined || req.data.length === 0) &&
      req.authorizationList === undefined &&
      req.accessList === undefined
    ) {
      const code = req.to === undefined ? undefined : await state.getCode(new Address(req.to));
      if (req.to !== undefined && (code === undefined || code.length === 0)) return first.gasSpent;
    }
    while (hi - lo > 1n) {
      if (Number(hi - lo) / Number(hi) < ESTIMATE_ERROR_RATIO) break;
      // geth: bisect, but try twice the lower bound first when that is lower.
      let mid = (hi + lo) / 2n;
      if (mid > lo * 2n) mid = lo * 2n;
      // Too little gas to even start (intrinsic cost) is a failure like any other here.
      const ok = await this.attempt(kept, req, env, mid).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) hi = mid;
      else lo = mid;
    }
    return hi;
  }
}
