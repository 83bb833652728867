// One flashblock as Base's stream sends it (base/base `crates/alloy/flashblocks`), parsed at the
// edge: hex becomes bigint / Uint8Array, unknown fields are ignored, anything malformed is a
// FlashblockParseError. Base's serde types are the measure of "well-formed": payload_id 8 bytes,
// `index` and `metadata.block_number` plain JSON integers, header fields hex, `base` only
// meaningful on index 0 (older producers send `"base": null` on the others, newer omit it).

import type { PendingTransaction } from "../pending/types.ts";
import { keccak256 } from "../util/crypto.ts";
import { FlashnodeError } from "../util/errors.ts";
import type { Hex } from "../util/hex.ts";
import { bytesToHex, unprefixedHexToBytes } from "../util/hex.ts";

/** The block environment, sent once per block on index 0 (Base's ExecutionPayloadBaseV1). */
export type FlashblockBase = {
  readonly parentHash: Uint8Array;
  readonly parentBeaconBlockRoot: Uint8Array;
  readonly feeRecipient: Uint8Array;
  readonly prevRandao: Uint8Array;
  readonly blockNumber: number;
  readonly gasLimit: bigint;
  readonly timestamp: bigint;
  readonly extraData: Uint8Array;
  readonly baseFeePerGas: bigint;
};

export type FlashblockWithdrawal = {
  readonly index: bigint;
  readonly validatorIndex: bigint;
  readonly address: Uint8Array;
  readonly amount: bigint;
};

/** Cumulative header fields of the block so far, and this flashblock's own new transactions. */
export type FlashblockDiff = {
  /** Zero on Base: the builder computes it only when the block is sealed. */
  readonly stateRoot: Uint8Array;
  readonly receiptsRoot: Uint8Array;
  readonly logsBloom: Uint8Array;
  readonly gasUsed: bigint;
  /** Hash of the partial header (zero state root): never the sealed block's hash. */
  readonly blockHash: Uint8Array;
  /** Only the transactions new in this flashblock, EIP-2718 bytes with their hashes. */
  readonly transactions: readonly PendingTransaction[];
  readonly withdrawals: readonly FlashblockWithdrawal[];
  readonly withdrawalsRoot: Uint8Array;
  readonly blobGasUsed: bigint | undefined;
};

/**
 * Informational only ("not stable ... may change without notice", and gone since v0.8.0 apart
 * from block_number): kept for diagnostics, never used to answer a request.
 */
export type FlashblockMetadata = {
  /** Transaction hash (lowercase hex) → the receipt exactly as sent. */
  readonly receipts: ReadonlyMap<Hex, unknown> | undefined;
  /** Address (lowercase hex) → balance. */
  readonly newAccountBalances: ReadonlyMap<Hex, bigint> | undefined;
};

export type Flashblock = {
  /** 8 bytes, lowercase hex: one value per block build. */
  readonly payloadId: Hex;
  readonly index: number;
  /** `metadata.block_number`, or `base.block_number` on an index 0 without it. */
  readonly blockNumber: number;
  /** Present on index 0 only. */
  readonly base: FlashblockBase | undefined;
  readonly diff: FlashblockDiff;
  readonly metadata: FlashblockMetadata;
};

export type FlashblockParseErrorCode = "FLASHBLOCK_SHAPE";

export class FlashblockParseError extends FlashnodeError {
  readonly code: FlashblockParseErrorCode = "FLASHBLOCK_SHAPE";
  override readonly name = "FlashblockParseError";
}

type JsonObject = { readonly [key: string]: unknown };

function fail(path: string, what: string): never {
  throw new FlashblockParseError(`${path}: ${what}`);
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function object(v: unknown, path: string): JsonObject {
  if (!isObject(v)) fail(path, "expected an object");
  return v;
}

function bytes(v: unknown, path: string, length?: number): Uint8Array {
  if (typeof v !== "string" || !(v.startsWith("0x") || v.startsWith("0X")))
    fail(path, "expected 0x-prefixed hex");
  const out = unprefixedHexToBytes(v, 2);
  if (out === undefined) fail(path, "malformed hex");
  if (length !== undefined && out.length !== length)
    fail(path, `expected ${length} bytes, got ${out.length}`);
  return out;
}

const MAX_QUANTITY_DIGITS = 64;

/** A hex QUANTITY (leading zeros tolerated, up to 256 bits). */
function quantity(v: unknown, path: string): bigint {
  if (typeof v !== "string" || !(v.startsWith("0x") || v.startsWith("0X")) || v.length < 3)
    fail(path, "expected a hex quantity");
  if (v.length - 2 > MAX_QUANTITY_DIGITS) fail(path, "quantity too large");
  for (let i = 2; i < v.length; i++) {
    const c = v.charCodeAt(i) | 0x20;
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) fail(path, "malformed hex quantity");
  }
  return BigInt(v);
}

/** A plain JSON integer (Base's u64 fields `index` and `block_number`); a hex quantity too. */
function integer(v: unknown, path: string): number {
  const n = typeof v === "string" ? Number(quantity(v, path)) : v;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0)
    fail(path, "expected a non-negative integer");
  return n;
}

function array(v: unknown, path: string): readonly unknown[] {
  if (!Array.isArray(v)) fail(path, "expected an array");
  return v;
}

function parseBase(v: JsonObject): FlashblockBase {
  const blockNumber = quantity(v.block_number, "base.block_number");
  if (blockNumber > BigInt(Number.MAX_SAFE_INTEGER)) fail("base.block_number", "too large");
  return {
    parentHash: bytes(v.parent_hash, "base.parent_hash", 32),
    parentBeaconBlockRoot: bytes(v.parent_beacon_block_root, "base.parent_beacon_block_root", 32),
    feeRecipient: bytes(v.fee_recipient, "base.fee_recipient", 20),
    prevRandao: bytes(v.prev_randao, "base.prev_randao", 32),
    blockNumber: Number(blockNumber),
    gasLimit: quantity(v.gas_limit, "base.gas_limit"),
    timestamp: quantity(v.timestamp, "base.timestamp"),
    extraData: bytes(v.extra_data, "base.extra_data"),
    baseFeePerGas: quantity(v.base_fee_per_gas, "base.base_fee_per_gas"),
  };
}

function parseWithdrawal(v: unknown, path: string): FlashblockWithdrawal {
  const w = object(v, path);
  return {
    index: quantity(w.index, `${path}.index`),
    validatorIndex: quantity(w.validatorIndex, `${path}.validatorIndex`),
    address: bytes(w.address, `${path}.address`, 20),
    amount: quantity(w.amount, `${path}.amount`),
  };
}

function parseDiff(v: JsonObject): FlashblockDiff {
  const transactions = array(v.transactions, "diff.transactions").map((t, i) => {
    const raw = bytes(t, `diff.transactions[${i}]`);
    if (raw.length === 0) fail(`diff.transactions[${i}]`, "empty transaction");
    return { hash: keccak256(raw), raw };
  });
  const withdrawals =
    v.withdrawals === undefined || v.withdrawals === null
      ? []
      : array(v.withdrawals, "diff.withdrawals").map((w, i) =>
          parseWithdrawal(w, `diff.withdrawals[${i}]`),
        );
  return {
    stateRoot: bytes(v.state_root, "diff.state_root", 32),
    receiptsRoot: bytes(v.receipts_root, "diff.receipts_root", 32),
    logsBloom: bytes(v.logs_bloom, "diff.logs_bloom", 256),
    gasUsed: quantity(v.gas_used, "diff.gas_used"),
    blockHash: bytes(v.block_hash, "diff.block_hash", 32),
    transactions,
    withdrawals,
    withdrawalsRoot: bytes(v.withdrawals_root, "diff.withdrawals_root", 32),
    blobGasUsed:
      v.blob_gas_used === undefined || v.blob_gas_used === null
        ? undefined
        : quantity(v.blob_gas_used, "diff.blob_gas_used"),
  };
}

/** Lenient: the informational fields are dropped when their shape is not the expected one. */
function parseMetadata(v: JsonObject | undefined): FlashblockMetadata {
  let receipts: Map<Hex, unknown> | undefined;
  if (v !== undefined && isObject(v.receipts)) {
    receipts = new Map();
    for (const [hash, receipt] of Object.entries(v.receipts))
      receipts.set(hash.toLowerCase() as Hex, receipt);
  }
  let balances: Map<Hex, bigint> | undefined;
  if (v !== undefined && isObject(v.new_account_balances)) {
    balances = new Map();
    try {
      for (const [address, balance] of Object.entries(v.new_account_balances))
        balances.set(address.toLowerCase() as Hex, quantity(balance, "balance"));
    } catch {
      balances = undefined;
    }
  }
  return { receipts, newAccountBalances: balances };
}

/** Parses one decoded JSON message; throws FlashblockParseError when it is not a flashblock. */
export function parseFlashblock(json: unknown): Flashblock {
  const m = object(json, "message");
  const payloadId = bytesToHex(bytes(m.payload_id, "payload_id", 8));
  const index = integer(m.index, "index");
  let base: FlashblockBase | undefined;
  if (index === 0) {
    if (m.base === undefined || m.base === null) fail("base", "missing on index 0");
    base = parseBase(object(m.base, "base"));
  }
  const diff = parseDiff(object(m.diff, "diff"));
  const metadata = m.metadata === undefined ? undefined : object(m.metadata, "metadata");
  const metaNumber =
    metadata?.block_number === undefined
      ? undefined
      : integer(metadata.block_number, "metadata.block_number");
  const blockNumber = metaNumber ?? base?.blockNumber;
  if (blockNumber === undefined) fail("metadata.block_number", "missing");
  if (base !== undefined && base.blockNumber !== blockNumber)
    fail("metadata.block_number", `${blockNumber} differs from base.block_number`);
  return { payloadId, index, blockNumber, base, diff, metadata: parseMetadata(metadata) };
}
