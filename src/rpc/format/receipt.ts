// Receipts exactly as geth marshals them (field set and order of its MarshalReceipt).
import type { BlockReceipts, Log, ReceiptRecord } from "../../chain/types.ts";
import { array, data, dataOrNull, object, qty } from "../../util/json.ts";

export type ReceiptContext = {
  readonly blockHash: Uint8Array;
  readonly blockNumber: number;
  readonly blockTimestamp: bigint;
  readonly transactionIndex: number;
  /** Index in the block of this receipt's first log. */
  readonly firstLogIndex: number;
};

/** `removed`: a log of a block the chain dropped (geth's reorg notification). */
export function logJson(
  log: Log,
  r: ReceiptRecord,
  ctx: ReceiptContext,
  i: number,
  removed = false,
): string {
  return object([
    ["address", data(log.address)],
    ["topics", array(log.topics, data)],
    ["data", data(log.data)],
    ["blockNumber", qty(ctx.blockNumber)],
    ["transactionHash", data(r.transactionHash)],
    ["transactionIndex", qty(ctx.transactionIndex)],
    ["blockHash", data(ctx.blockHash)],
    ["blockTimestamp", qty(ctx.blockTimestamp)],
    ["logIndex", qty(ctx.firstLogIndex + i)],
    ["removed", removed ? "true" : "false"],
  ]);
}

const optQty = (v: bigint | undefined) => (v === undefined ? undefined : qty(v));

/**
 * Receipts exactly as geth marshals them; on an OP-stack chain with op-geth's extras (its map
 * marshals keys sorted, so they fall in among geth's): a deposit's `depositNonce` and
 * `depositReceiptVersion`, every other transaction's L1 fee fields.
 */
export function receiptJson(r: ReceiptRecord, ctx: ReceiptContext): string {
  const op = r.op;
  return object([
    ["blobGasPrice", r.blobGasPrice === undefined ? undefined : qty(r.blobGasPrice)],
    ["blobGasUsed", r.blobGasUsed === undefined ? undefined : qty(r.blobGasUsed)],
    ["blockHash", data(ctx.blockHash)],
    ["blockNumber", qty(ctx.blockNumber)],
    ["contractAddress", dataOrNull(r.contractAddress)],
    ["cumulativeGasUsed", qty(r.cumulativeGasUsed)],
    ["depositNonce", optQty(op?.depositNonce)],
    ["depositReceiptVersion", optQty(op?.depositReceiptVersion)],
    ["effectiveGasPrice", qty(r.effectiveGasPrice)],
    ["from", data(r.from)],
    ["gasUsed", qty(r.gasUsed)],
    ["l1BaseFeeScalar", optQty(op?.l1BaseFeeScalar)],
    ["l1BlobBaseFee", optQty(op?.l1BlobBaseFee)],
    ["l1BlobBaseFeeScalar", optQty(op?.l1BlobBaseFeeScalar)],
    ["l1Fee", optQty(op?.l1Fee)],
    ["l1GasPrice", optQty(op?.l1GasPrice)],
    ["l1GasUsed", optQty(op?.l1GasUsed)],
    ["logs", array(r.logs, (log, i) => logJson(log, r, ctx, i))],
    ["logsBloom", data(r.logsBloom)],
    ["root", r.root === undefined ? undefined : data(r.root)],
    ["status", r.root === undefined ? qty(r.status ?? 0) : undefined],
    ["to", dataOrNull(r.to)],
    ["transactionHash", data(r.transactionHash)],
    ["transactionIndex", qty(ctx.transactionIndex)],
    ["type", qty(r.type)],
  ]);
}

/** Index of the first log of receipt `index` within its block. */
export function firstLogIndex(receipts: readonly ReceiptRecord[], index: number): number {
  let n = 0;
  for (let i = 0; i < index; i++) n += receipts[i]!.logs.length;
  return n;
}

const FIRST = { transactionIndex: 0, logIndex: 0 };

export function blockReceiptsJson(block: BlockReceipts): string {
  let logIndex = 0;
  return array(block.receipts, (r, i) => {
    const json = receiptJson(r, {
      blockHash: block.blockHash,
      blockNumber: block.blockNumber,
      blockTimestamp: block.blockTimestamp,
      transactionIndex: i,
      firstLogIndex: logIndex,
    });
    logIndex += r.logs.length;
    return json;
  });
}

/**
 * Each log of a block with its receipt, position and rendering context, in block order.
 * `from`: `block.receipts` are the block's from that position on (a flashblock's new receipts
 * continue the block's transaction and log indexes).
 */
export function forEachLog(
  block: BlockReceipts,
  fn: (log: Log, receipt: ReceiptRecord, ctx: ReceiptContext, indexInReceipt: number) => void,
  from: { readonly transactionIndex: number; readonly logIndex: number } = FIRST,
): void {
  let firstLogIndex = from.logIndex;
  for (let i = 0; i < block.receipts.length; i++) {
    const r = block.receipts[i]!;
    const ctx: ReceiptContext = {
      blockHash: block.blockHash,
      blockNumber: block.blockNumber,
      blockTimestamp: block.blockTimestamp,
      transactionIndex: from.transactionIndex + i,
      firstLogIndex,
    };
    for (let j = 0; j < r.logs.length; j++) fn(r.logs[j]!, r, ctx, j);
    firstLogIndex += r.logs.length;
  }
}
