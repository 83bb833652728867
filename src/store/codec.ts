// Value encodings of the archive tables. RLP because it is compact for the mostly-small integers
// and byte strings involved, and the EVM library already ships a fast codec.
import { RLP } from "@ethereumjs/rlp";
import type {
  AccountRecord,
  BlockReceipts,
  Log,
  OpReceiptFields,
  ReceiptRecord,
} from "../chain/types.ts";
import { bigIntToBytes, bytesToBigInt, copyBytes } from "../util/hex.ts";

type Nested = Uint8Array | Nested[];
const EMPTY = new Uint8Array(0);

function num(n: bigint | number): Uint8Array {
  return bigIntToBytes(BigInt(n));
}

function asBytes(value: Nested | undefined): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new Error("corrupt record: expected bytes");
  return value;
}

function asList(value: Nested | undefined): Nested[] {
  if (!Array.isArray(value)) throw new Error("corrupt record: expected list");
  return value;
}

export function encodeAccount(account: AccountRecord): Uint8Array {
  return RLP.encode([num(account.nonce), num(account.balance), account.codeHash ?? EMPTY]);
}

export function decodeAccount(bytes: Uint8Array): AccountRecord {
  const [nonce, balance, codeHash] = asList(RLP.decode(bytes) as Nested);
  const hash = asBytes(codeHash);
  return {
    nonce: bytesToBigInt(asBytes(nonce)),
    balance: bytesToBigInt(asBytes(balance)),
    // Copied: callers may decode from a zero-copy buffer that the next read overwrites.
    codeHash: hash.length === 0 ? undefined : copyBytes(hash),
  };
}

function encodeLog(log: Log): Nested {
  return [log.address, [...log.topics], log.data];
}

function decodeLog(item: Nested): Log {
  const [address, topics, data] = asList(item);
  return { address: asBytes(address), topics: asList(topics).map(asBytes), data: asBytes(data) };
}

const plusOne = (v: bigint | undefined) => (v === undefined ? EMPTY : num(v + 1n));

/** OP-stack extras, a 15th field present only on an OP chain's receipts (older rows have 14). */
function encodeOp(op: OpReceiptFields): Nested {
  return [
    plusOne(op.l1Fee),
    plusOne(op.l1GasUsed),
    plusOne(op.l1GasPrice),
    plusOne(op.l1BlobBaseFee),
    plusOne(op.l1BaseFeeScalar),
    plusOne(op.l1BlobBaseFeeScalar),
    plusOne(op.depositNonce),
    plusOne(op.depositReceiptVersion),
  ];
}

function decodeOp(item: Nested): OpReceiptFields {
  const f = asList(item).map((x) => optionalPlusOne(asBytes(x)));
  return {
    l1Fee: f[0],
    l1GasUsed: f[1],
    l1GasPrice: f[2],
    l1BlobBaseFee: f[3],
    l1BaseFeeScalar: f[4],
    l1BlobBaseFeeScalar: f[5],
    depositNonce: f[6],
    depositReceiptVersion: f[7],
  };
}

function encodeReceipt(r: ReceiptRecord): Nested {
  const fields: Nested[] = [
    num(r.type),
    r.root ?? EMPTY,
    r.status === undefined ? EMPTY : num(r.status + 1), // +1 so status 0 is not the empty string
    num(r.cumulativeGasUsed),
    num(r.gasUsed),
    num(r.effectiveGasPrice),
    r.from,
    r.to ?? EMPTY,
    r.contractAddress ?? EMPTY,
    r.transactionHash,
    r.logsBloom,
    r.logs.map(encodeLog),
    r.blobGasUsed === undefined ? EMPTY : num(r.blobGasUsed + 1n),
    r.blobGasPrice === undefined ? EMPTY : num(r.blobGasPrice + 1n),
  ];
  if (r.op !== undefined) fields.push(encodeOp(r.op));
  return fields;
}

function optional(bytes: Uint8Array): Uint8Array | undefined {
  return bytes.length === 0 ? undefined : bytes;
}

function optionalPlusOne(bytes: Uint8Array): bigint | undefined {
  return bytes.length === 0 ? undefined : bytesToBigInt(bytes) - 1n;
}

function decodeReceipt(item: Nested): ReceiptRecord {
  const f = asList(item).map((x, i) => (i === 11 || i === 14 ? x : asBytes(x)));
  const status = optionalPlusOne(f[2] as Uint8Array);
  return {
    type: Number(bytesToBigInt(f[0] as Uint8Array)),
    root: optional(f[1] as Uint8Array),
    status: status === undefined ? undefined : Number(status),
    cumulativeGasUsed: bytesToBigInt(f[3] as Uint8Array),
    gasUsed: bytesToBigInt(f[4] as Uint8Array),
    effectiveGasPrice: bytesToBigInt(f[5] as Uint8Array),
    from: f[6] as Uint8Array,
    to: optional(f[7] as Uint8Array),
    contractAddress: optional(f[8] as Uint8Array),
    transactionHash: f[9] as Uint8Array,
    logsBloom: f[10] as Uint8Array,
    logs: asList(f[11]).map(decodeLog),
    blobGasUsed: optionalPlusOne(f[12] as Uint8Array),
    blobGasPrice: optionalPlusOne(f[13] as Uint8Array),
    ...(f[14] === undefined ? {} : { op: decodeOp(f[14]) }),
  };
}

/** Receipts of one block, with the block timestamp logs carry. */
export function encodeReceipts(timestamp: bigint, receipts: readonly ReceiptRecord[]): Uint8Array {
  return RLP.encode([num(timestamp), receipts.map(encodeReceipt)]);
}

export function decodeReceipts(
  bytes: Uint8Array,
  blockNumber: number,
  blockHash: Uint8Array,
): BlockReceipts {
  const [timestamp, list] = asList(RLP.decode(bytes) as Nested);
  return {
    blockNumber,
    blockHash,
    blockTimestamp: bytesToBigInt(asBytes(timestamp)),
    receipts: asList(list).map(decodeReceipt),
  };
}

/** A dev block's state writes, each with the number of transactions before it. */
export function encodeDevWrites(writes: ReadonlyArray<readonly [number, Uint8Array]>): Uint8Array {
  return RLP.encode(writes.map(([before, w]) => [num(before), w]));
}

export function decodeDevWrites(bytes: Uint8Array): Array<readonly [number, Uint8Array]> {
  return asList(RLP.decode(bytes) as Nested).map((item) => {
    const [before, w] = asList(item);
    return [Number(bytesToBigInt(asBytes(before))), copyBytes(asBytes(w))] as const;
  });
}

/**
 * A published flashblock: the block's timestamp, the flashblock's transactions (2718 bytes) and,
 * after them, the dev state changes it carried (src/exec/devWrites.ts; absent when none).
 */
export function encodeFlashblockRecord(
  timestamp: bigint,
  transactions: readonly Uint8Array[],
  ops: readonly Uint8Array[] = [],
): Uint8Array {
  return RLP.encode(
    ops.length === 0
      ? [num(timestamp), [...transactions]]
      : [num(timestamp), [...transactions], [...ops]],
  );
}

export function decodeFlashblockRecord(bytes: Uint8Array): {
  timestamp: bigint;
  transactions: Uint8Array[];
  ops: Uint8Array[];
} {
  const [timestamp, txs, ops] = asList(RLP.decode(bytes) as Nested);
  return {
    timestamp: bytesToBigInt(asBytes(timestamp)),
    transactions: asList(txs).map((t) => copyBytes(asBytes(t))),
    ops: ops === undefined ? [] : asList(ops).map((o) => copyBytes(asBytes(o))),
  };
}
