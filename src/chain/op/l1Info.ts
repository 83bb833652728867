// The L1-info deposit that opens every OP-stack block (OP specs deposits.md, "L1 Attributes
// Deposited Transaction"), in the Ecotone format that the L1Block predeploy we deploy
// (setL1BlockValuesEcotone) reads, and its parsing back from a block's first transaction,
// as op-geth derives receipts' L1 fields from it.
import type { Common } from "@ethereumjs/common";
import { keccak256 } from "../../util/crypto.ts";
import { bigIntToBytes, bytesToBigInt, padLeft } from "../../util/hex.ts";
import { DEPOSITOR_ACCOUNT, L1_BLOCK } from "./config.ts";
import { DepositTx } from "./depositTx.ts";

/** setL1BlockValuesEcotone() */
export const ECOTONE_L1_INFO_SELECTOR = Uint8Array.of(0x44, 0x0a, 0x5e, 0x20);
const L1_INFO_LENGTH = 164;
/** Post-Regolith gas of the L1-info deposit. */
export const L1_INFO_GAS = 1_000_000n;

/** The simulated L1 block a dev block's L1-info deposit reports. */
export type L1Values = {
  readonly number: bigint;
  readonly timestamp: bigint;
  readonly baseFee: bigint;
  readonly blobBaseFee: bigint;
  readonly hash: Uint8Array;
  readonly sequenceNumber: bigint;
  readonly batcherHash: Uint8Array;
  readonly baseFeeScalar: number;
  readonly blobBaseFeeScalar: number;
};

function word(value: bigint, bytes: number): Uint8Array {
  return padLeft(bigIntToBytes(value), bytes);
}

export function encodeL1InfoEcotone(v: L1Values): Uint8Array {
  const out = new Uint8Array(L1_INFO_LENGTH);
  out.set(ECOTONE_L1_INFO_SELECTOR, 0);
  out.set(word(BigInt(v.baseFeeScalar), 4), 4);
  out.set(word(BigInt(v.blobBaseFeeScalar), 4), 8);
  out.set(word(v.sequenceNumber, 8), 12);
  out.set(word(v.timestamp, 8), 20);
  out.set(word(v.number, 8), 28);
  out.set(word(v.baseFee, 32), 36);
  out.set(word(v.blobBaseFee, 32), 68);
  out.set(padLeft(v.hash, 32), 100);
  out.set(padLeft(v.batcherHash, 32), 132);
  return out;
}

/** The L1 fee parameters a block's L1-info calldata carries (op-geth's extractL1GasParams). */
export type L1FeeParams = {
  readonly l1BaseFee: bigint;
  readonly l1BlobBaseFee: bigint;
  readonly baseFeeScalar: bigint;
  readonly blobBaseFeeScalar: bigint;
};

export function decodeL1InfoEcotone(data: Uint8Array): L1FeeParams | undefined {
  if (data.length !== L1_INFO_LENGTH) return undefined;
  for (let i = 0; i < 4; i++) if (data[i] !== ECOTONE_L1_INFO_SELECTOR[i]) return undefined;
  return {
    baseFeeScalar: bytesToBigInt(data.subarray(4, 8)),
    blobBaseFeeScalar: bytesToBigInt(data.subarray(8, 12)),
    l1BaseFee: bytesToBigInt(data.subarray(36, 68)),
    l1BlobBaseFee: bytesToBigInt(data.subarray(68, 100)),
  };
}

/** Source hash domains (deposits.md): 0 user deposit, 1 L1 info. */
function sourceHash(domain: number, l1BlockHash: Uint8Array, index: bigint): Uint8Array {
  const inner = new Uint8Array(64);
  inner.set(padLeft(l1BlockHash, 32), 0);
  inner.set(word(index, 32), 32);
  const outer = new Uint8Array(64);
  outer.set(word(BigInt(domain), 32), 0);
  outer.set(keccak256(inner), 32);
  return keccak256(outer);
}

export function l1InfoDeposit(v: L1Values, common: Common): DepositTx {
  return new DepositTx(
    {
      sourceHash: sourceHash(1, v.hash, v.sequenceNumber),
      from: DEPOSITOR_ACCOUNT,
      to: L1_BLOCK,
      mint: 0n,
      value: 0n,
      gasLimit: L1_INFO_GAS,
      isSystemTx: false,
      data: encodeL1InfoEcotone(v),
    },
    common,
  );
}

/** A user deposit's source hash: the L1 block and log index of its TransactionDeposited event. */
export function userDepositSourceHash(l1BlockHash: Uint8Array, logIndex: bigint): Uint8Array {
  return sourceHash(0, l1BlockHash, logIndex);
}

/** The L1 fee settings of `flashnode dev` (flags; Base's scalars by default). */
export type DevL1Config = {
  readonly baseFee: bigint;
  readonly blobBaseFee: bigint;
  readonly baseFeeScalar: number;
  readonly blobBaseFeeScalar: number;
};

export const DEFAULT_DEV_L1: DevL1Config = {
  baseFee: 1_000_000_000n,
  blobBaseFee: 1n,
  baseFeeScalar: 2269,
  blobBaseFeeScalar: 1_055_762,
};

const L1_SLOT_SECONDS = 12n;

/**
 * The simulated L1 origin of the L2 block at `timestamp`: one L1 block every 12 s, its number
 * and time derived from the L2 time (so a block rebuilt after a restart reports the same values),
 * `sequenceNumber` the seconds since that L1 block; the fees and scalars are the flags'.
 */
export function devL1Values(config: DevL1Config, timestamp: bigint): L1Values {
  const number = timestamp / L1_SLOT_SECONDS;
  const l1Timestamp = number * L1_SLOT_SECONDS;
  const id = new TextEncoder().encode(`flashnode dev L1 block ${number}`);
  return {
    number,
    timestamp: l1Timestamp,
    baseFee: config.baseFee,
    blobBaseFee: config.blobBaseFee,
    hash: keccak256(id),
    sequenceNumber: timestamp - l1Timestamp,
    batcherHash: new Uint8Array(32),
    baseFeeScalar: config.baseFeeScalar,
    blobBaseFeeScalar: config.blobBaseFeeScalar,
  };
}
