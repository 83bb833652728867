// One call of a simulated block as geth turns it into a transaction (TransactionArgs.CallDefaults,
// ToTransaction, ToMessage): the unsigned transaction the block carries (hash, root, full JSON),
// the message's prices, and the checks geth makes before running it, with geth's texts and codes.
import type { Common } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import { createTx, getCalldataFloorGas, type TypedTransaction } from "@ethereumjs/tx";
import { Address, bigIntToUnpaddedBytes, toChecksumAddress } from "@ethereumjs/util";
import type { TransactionView } from "../../chain/blockView.ts";
import type { SimulateCall } from "../../services/simulate.ts";
import { keccak256 } from "../../util/crypto.ts";
import { bytesToHex, quantity } from "../../util/hex.ts";
import { CallFailedError } from "../callExecutor.ts";

/** geth's error codes of eth_simulateV1 (internal/ethapi/errors.go). */
export const SIM_CODE = {
  nonceTooLow: -38010,
  nonceTooHigh: -38011,
  baseFeeTooLow: -38012,
  intrinsicGas: -38013,
  insufficientFunds: -38014,
  blockGasLimitReached: -38015,
  blockNumberInvalid: -38020,
  blockTimestampInvalid: -38021,
  maxInitCodeSizeExceeded: -38025,
  clientLimitExceeded: -38026,
  internal: -32603,
  invalidParams: -32602,
  vmError: -32015,
  server: -32000,
} as const;

/** A call with geth's defaults filled in (sanitizeCall + CallDefaults). */
export type SanitizedCall = {
  readonly from: Uint8Array;
  readonly to: Uint8Array | undefined;
  readonly nonce: bigint;
  readonly gas: bigint;
  readonly value: bigint;
  readonly data: Uint8Array;
  readonly chainId: bigint;
  /** Set for legacy pricing (given, or defaulted before London). */
  readonly gasPrice: bigint | undefined;
  readonly maxFeePerGas: bigint | undefined;
  readonly maxPriorityFeePerGas: bigint | undefined;
  readonly maxFeePerBlobGas: bigint | undefined;
  readonly accessList: SimulateCall["accessList"];
  readonly authorizationList: SimulateCall["authorizationList"];
  readonly blobVersionedHashes: readonly Uint8Array[] | undefined;
};

/** The message's prices (ToMessage). */
export type Prices = { gasPrice: bigint; feeCap: bigint; tipCap: bigint };

const MAX_UINT64 = 2n ** 64n - 1n;
const BLOB_TX_MAX_BLOBS = 6;
const BLOB_GAS_PER_BLOB = 131072n;
const MAX_INIT_CODE_SIZE = 49152;

const checksum = (a: Uint8Array) => toChecksumAddress(bytesToHex(a));

/** A failure before execution: geth wraps it as "err: … (supplied gas N)". */
export function txError(message: string, code: number, gas: bigint): CallFailedError {
  return new CallFailedError(`err: ${message} (supplied gas ${gas})`, code, undefined);
}

export function callDefaults(
  call: SimulateCall,
  from: Uint8Array,
  nonce: bigint,
  gas: bigint,
  chainId: bigint,
  baseFee: bigint | undefined,
): SanitizedCall {
  if (
    call.gasPrice !== undefined &&
    (call.maxFeePerGas !== undefined || call.maxPriorityFeePerGas !== undefined)
  )
    throw new CallFailedError(
      "both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified",
      SIM_CODE.server,
      undefined,
    );
  if (call.chainId !== undefined && call.chainId !== chainId)
    throw new CallFailedError(
      `chainId does not match node's (have=${call.chainId}, want=${chainId})`,
      SIM_CODE.server,
      undefined,
    );
  const london = baseFee !== undefined;
  return {
    from,
    to: call.to,
    nonce,
    gas,
    value: call.value ?? 0n,
    data: call.data ?? new Uint8Array(0),
    chainId,
    gasPrice: london ? call.gasPrice : (call.gasPrice ?? 0n),
    maxFeePerGas: london ? (call.maxFeePerGas ?? 0n) : call.maxFeePerGas,
    maxPriorityFeePerGas: london ? (call.maxPriorityFeePerGas ?? 0n) : call.maxPriorityFeePerGas,
    maxFeePerBlobGas:
      call.blobVersionedHashes !== undefined
        ? (call.maxFeePerBlobGas ?? 0n)
        : call.maxFeePerBlobGas,
    accessList: call.accessList,
    authorizationList: call.authorizationList,
    blobVersionedHashes: call.blobVersionedHashes,
  };
}

/** ToTransaction(DynamicFeeTxType): the type the unsigned transaction gets. */
export function txType(c: SanitizedCall): 0 | 2 | 3 | 4 {
  if (c.gasPrice !== undefined) return 0;
  if (c.authorizationList !== undefined) return 4;
  if (c.blobVersionedHashes !== undefined) return 3;
  return 2;
}

export function prices(c: SanitizedCall, baseFee: bigint | undefined): Prices {
  if (baseFee === undefined || c.gasPrice !== undefined) {
    const p = c.gasPrice ?? 0n;
    return { gasPrice: p, feeCap: p, tipCap: p };
  }
  const feeCap = c.maxFeePerGas ?? 0n;
  const tipCap = c.maxPriorityFeePerGas ?? 0n;
  let gasPrice = 0n;
  if (feeCap > 0n || tipCap > 0n) {
    gasPrice = tipCap + baseFee;
    if (gasPrice > feeCap) gasPrice = feeCap;
  }
  return { gasPrice, feeCap, tipCap };
}

const int = bigIntToUnpaddedBytes;

/** The unsigned transaction (v = r = s = 0): its EIP-2718 encoding and its view. */
export function unsignedTx(c: SanitizedCall): { raw: Uint8Array; view: TransactionView } {
  const type = txType(c);
  if ((type === 3 || type === 4) && c.to === undefined)
    // geth dereferences the missing `to` of a blob or set-code transaction and crashes.
    throw new CallFailedError("method handler crashed", SIM_CODE.internal, undefined);
  const to = c.to ?? new Uint8Array(0);
  const accessList = (c.accessList ?? []).map((e) => [e.address, e.storageKeys]);
  const zeroSig = [int(0n), int(0n), int(0n)];
  let fields: unknown[];
  if (type === 0) {
    fields = [
      int(c.nonce),
      int(c.gasPrice ?? 0n),
      int(c.gas),
      to,
      int(c.value),
      c.data,
      ...zeroSig,
    ];
  } else {
    const head = [
      int(c.chainId),
      int(c.nonce),
      int(c.maxPriorityFeePerGas ?? 0n),
      int(c.maxFeePerGas ?? 0n),
      int(c.gas),
      to,
      int(c.value),
      c.data,
      accessList,
    ];
    const extra =
      type === 3
        ? [int(c.maxFeePerBlobGas ?? 0n), [...(c.blobVersionedHashes ?? [])]]
        : type === 4
          ? [
              (c.authorizationList ?? []).map((a) => [
                int(a.chainId),
                a.address,
                int(a.nonce),
                int(a.yParity),
                int(a.r),
                int(a.s),
              ]),
            ]
          : [];
    fields = [...head, ...extra, ...zeroSig];
  }
  const body = RLP.encode(fields as Parameters<typeof RLP.encode>[0]);
  const raw = type === 0 ? body : Uint8Array.from([type, ...body]);
  const typed = type !== 0;
  const view: TransactionView = {
    type,
    hash: keccak256(raw),
    nonce: c.nonce,
    gasLimit: c.gas,
    to: c.to,
    value: c.value,
    input: c.data,
    chainId: typed ? c.chainId : undefined,
    gasPrice: typed ? undefined : (c.gasPrice ?? 0n),
    maxFeePerGas: typed ? (c.maxFeePerGas ?? 0n) : undefined,
    maxPriorityFeePerGas: typed ? (c.maxPriorityFeePerGas ?? 0n) : undefined,
    maxFeePerBlobGas: type === 3 ? (c.maxFeePerBlobGas ?? 0n) : undefined,
    accessList: typed ? (c.accessList ?? []) : undefined,
    blobVersionedHashes: type === 3 ? (c.blobVersionedHashes ?? []) : undefined,
    authorizationList: type === 4 ? (c.authorizationList ?? []) : undefined,
    v: 0n,
    r: 0n,
    s: 0n,
  };
  return { raw, view };
}

/**
 * The transaction the EVM library runs: same type and fields, with the prices it is to charge
 * (`execFeeCap`), from the call's sender. Nonce and the EIP-7825 cap are geth's checks here (or
 * skipped, as geth skips them), so the library's own are kept out of the way.
 */
export function execTx(
  c: SanitizedCall,
  common: Common,
  execFeeCap: bigint,
  execBlobFeeCap: bigint,
): TypedTransaction {
  const type = txType(c);
  const cap = 1n << 24n;
  const base = {
    nonce: 0n,
    gasLimit: c.gas < cap ? c.gas : cap,
    value: c.value,
    data: c.data,
    ...(c.to === undefined ? {} : { to: new Address(c.to) }),
    accessList: (c.accessList ?? []).map((e) => ({
      address: bytesToHex(e.address),
      storageKeys: e.storageKeys.map(bytesToHex),
    })),
  };
  const opts = { common, freeze: false, allowUnlimitedInitCodeSize: true };
  const tip =
    (c.maxPriorityFeePerGas ?? 0n) < execFeeCap ? (c.maxPriorityFeePerGas ?? 0n) : execFeeCap;
  let tx: TypedTransaction;
  if (type === 0) {
    // Legacy pricing keeps its access list in the message (a type-1 transaction here).
    tx =
      c.accessList === undefined || !common.isActivatedEIP(2930)
        ? createTx({ ...base, type: 0, gasPrice: execFeeCap }, opts)
        : createTx({ ...base, type: 1, gasPrice: execFeeCap }, opts);
  } else if (type === 4) {
    tx = createTx(
      {
        ...base,
        type: 4,
        maxFeePerGas: execFeeCap,
        maxPriorityFeePerGas: tip,
        authorizationList: (c.authorizationList ?? []).map((a) => ({
          chainId: quantity(a.chainId),
          address: bytesToHex(a.address),
          nonce: quantity(a.nonce),
          yParity: quantity(a.yParity),
          r: quantity(a.r),
          s: quantity(a.s),
        })),
      },
      opts,
    );
  } else if (type === 3) {
    tx = createTx(
      {
        ...base,
        type: 3,
        maxFeePerGas: execFeeCap,
        maxPriorityFeePerGas: tip,
        maxFeePerBlobGas: execBlobFeeCap,
        blobVersionedHashes: (c.blobVersionedHashes ?? []).map(bytesToHex),
      },
      opts,
    );
  } else {
    tx = createTx({ ...base, type: 2, maxFeePerGas: execFeeCap, maxPriorityFeePerGas: tip }, opts);
  }
  const from = new Address(c.from);
  Object.assign(tx, {
    gasLimit: c.gas,
    getSenderAddress: () => from,
    isSigned: () => true,
  });
  return tx;
}

export type PrecheckState = {
  readonly stateNonce: bigint;
  readonly balance: bigint;
  readonly validate: boolean;
  readonly london: boolean;
  readonly cancun: boolean;
  readonly osaka: boolean;
  readonly shanghai: boolean;
  readonly baseFee: bigint;
  readonly blobBaseFee: bigint;
};

/**
 * geth's preCheck, buyGas and the intrinsic-gas checks of its state transition, in its order,
 * with its messages. Throws the first failure; else returns the library's transaction, made
 * (by `makeTx`) only once geth's checks on its shape have passed, so they speak first.
 */
export function precheck(
  c: SanitizedCall,
  p: Prices,
  s: PrecheckState,
  makeTx: () => TypedTransaction,
): TypedTransaction {
  const from = checksum(c.from);
  const fail = (message: string, code: number) => txError(message, code, c.gas);
  const internal = SIM_CODE.internal;
  if (s.validate) {
    if (s.stateNonce < c.nonce)
      throw fail(
        `nonce too high: address ${from}, tx: ${c.nonce} state: ${s.stateNonce}`,
        SIM_CODE.nonceTooHigh,
      );
    if (s.stateNonce > c.nonce)
      throw fail(
        `nonce too low: address ${from}, tx: ${c.nonce} state: ${s.stateNonce}`,
        SIM_CODE.nonceTooLow,
      );
    if (s.stateNonce === MAX_UINT64)
      throw fail(`nonce has max value: address ${from}, nonce: ${s.stateNonce}`, internal);
  }
  if (s.london) {
    const skip = !s.validate && p.feeCap === 0n && p.tipCap === 0n;
    if (!skip) {
      if (p.feeCap < p.tipCap)
        throw fail(
          `max priority fee per gas higher than max fee per gas: address ${from}, maxPriorityFeePerGas: ${p.tipCap}, maxFeePerGas: ${p.feeCap}`,
          SIM_CODE.invalidParams,
        );
      if (p.feeCap < s.baseFee)
        throw fail(
          `max fee per gas less than block base fee: address ${from}, maxFeePerGas: ${p.feeCap}, baseFee: ${s.baseFee}`,
          SIM_CODE.baseFeeTooLow,
        );
    }
  }
  const hashes = c.blobVersionedHashes;
  if (hashes !== undefined) {
    if (c.to === undefined) throw fail("blob transaction of type create", internal);
    if (hashes.length === 0) throw fail("blob transaction missing blob hashes", internal);
    if (s.osaka && hashes.length > BLOB_TX_MAX_BLOBS)
      throw fail("blob transaction has too many blobs", internal);
    hashes.forEach((h, i) => {
      if (h.length !== 32 || h[0] !== 1) throw fail(`blob ${i} has invalid hash version`, internal);
    });
  }
  const blobGas = s.cancun ? BigInt(hashes?.length ?? 0) * BLOB_GAS_PER_BLOB : 0n;
  const blobFeeCap = c.maxFeePerBlobGas ?? 0n;
  if (blobGas > 0n && !(!s.validate && blobFeeCap === 0n) && blobFeeCap < s.blobBaseFee)
    throw fail(
      `max fee per blob gas less than block blob gas fee: address ${from} blobGasFeeCap: ${blobFeeCap}, blobBaseFee: ${s.blobBaseFee}`,
      internal,
    );
  if (c.authorizationList !== undefined) {
    if (c.to === undefined)
      throw fail(
        `EIP-7702 transaction cannot be used to create contract (sender ${from})`,
        internal,
      );
    if (c.authorizationList.length === 0)
      throw fail(`EIP-7702 transaction with empty auth list (sender ${from})`, internal);
  }
  if (c.to === undefined && s.shanghai && c.data.length > MAX_INIT_CODE_SIZE)
    throw fail(
      `max initcode size exceeded: code size ${c.data.length} limit ${MAX_INIT_CODE_SIZE}`,
      SIM_CODE.maxInitCodeSizeExceeded,
    );
  // buyGas: the balance must cover gas at the fee cap, the value and the blob gas.
  const want = c.gas * p.feeCap + c.value + blobGas * blobFeeCap;
  if (s.balance < want)
    throw fail(
      `insufficient funds for gas * price + value: address ${from} have ${s.balance} want ${want}`,
      SIM_CODE.insufficientFunds,
    );
  let tx: TypedTransaction;
  try {
    tx = makeTx();
  } catch (e) {
    throw fail((e as Error).message, internal);
  }
  const intrinsic = tx.getIntrinsicGas();
  if (c.gas < intrinsic)
    throw fail(`intrinsic gas too low: have ${c.gas}, want ${intrinsic}`, SIM_CODE.intrinsicGas);
  const floor = getCalldataFloorGas(tx, new Address(c.from));
  if (c.gas < floor)
    throw fail(`insufficient gas for floor data gas cost: have ${c.gas}, want ${floor}`, internal);
  const paid = c.gas * p.gasPrice + blobGas * s.blobBaseFee;
  if (c.value > 0n && s.balance - paid < c.value)
    throw fail(`insufficient funds for transfer: address ${from}`, SIM_CODE.insufficientFunds);
  return tx;
}
