// Receipts are the node's job: the EVM library gives cumulative gas, logs and status; per-tx gas,
// effective gas price, sender, contract address and blob fields are derived here, as geth does.
import type { Block } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import { bigIntToUnpaddedBytes, generateAddress } from "@ethereumjs/util";
import type { TxReceipt } from "@ethereumjs/vm";
import { type DepositTx, isDepositTx } from "../chain/op/depositTx.ts";
import { hashOf, senderOf } from "../chain/txFacts.ts";
import type { Log, OpReceiptFields, ReceiptRecord } from "../chain/types.ts";
import type { L1FeeInfo } from "./op/l1Cost.ts";

const GAS_PER_BLOB = 131072n;

function effectiveGasPrice(tx: TypedTransaction | DepositTx, baseFee: bigint | undefined): bigint {
  if (isDepositTx(tx)) return 0n;
  if ("maxFeePerGas" in tx && "maxPriorityFeePerGas" in tx) {
    const tip = tx.maxPriorityFeePerGas as bigint;
    const cap = tx.maxFeePerGas as bigint;
    const price = (baseFee ?? 0n) + tip;
    if (price < cap) return price;
    return cap;
  }
  return (tx as { gasPrice: bigint }).gasPrice;
}

export type ReceiptContext = {
  readonly baseFee: bigint | undefined;
  /** Blob base fee of the block; undefined before Cancun. */
  readonly blobGasPrice: bigint | undefined;
  /** Cumulative gas of the block before this transaction. */
  readonly previousCumulative: bigint;
  /** OP-stack chains: the transaction's L1 fee, or the deposit's nonce and receipt version. */
  readonly op?: OpReceiptInput;
};

export type OpReceiptInput = {
  readonly l1Fee: L1FeeInfo | undefined;
  readonly depositNonce: bigint | undefined;
  /** Canyon on: deposit receipts carry version 1. */
  readonly canyon: boolean;
};

function opFields(tx: TypedTransaction | DepositTx, op: OpReceiptInput): OpReceiptFields {
  const deposit = isDepositTx(tx);
  const fee = deposit ? undefined : op.l1Fee;
  return {
    l1Fee: fee?.l1Fee,
    l1GasUsed: fee?.l1GasUsed,
    l1GasPrice: fee?.l1GasPrice,
    l1BlobBaseFee: fee?.l1BlobBaseFee,
    l1BaseFeeScalar: fee?.l1BaseFeeScalar,
    l1BlobBaseFeeScalar: fee?.l1BlobBaseFeeScalar,
    depositNonce: deposit ? op.depositNonce : undefined,
    depositReceiptVersion: deposit && op.canyon ? 1n : undefined,
  };
}

export function receiptRecord(
  tx: TypedTransaction | DepositTx,
  receipt: TxReceipt,
  ctx: ReceiptContext,
): ReceiptRecord {
  const from = senderOf(tx).bytes;
  // A deposit's contract address comes from the nonce it used (its receipt's depositNonce).
  const nonce = isDepositTx(tx) ? (ctx.op?.depositNonce ?? 0n) : tx.nonce;
  const cumulative = receipt.cumulativeBlockGasUsed;
  const logs: Log[] = receipt.logs.map(([address, topics, data]) => ({ address, topics, data }));
  const isBlob = tx.type === 3;
  const blobCount = isBlob
    ? (tx as { blobVersionedHashes: unknown[] }).blobVersionedHashes.length
    : 0;
  return {
    type: tx.type,
    status: "status" in receipt ? receipt.status : undefined,
    root: "stateRoot" in receipt ? receipt.stateRoot : undefined,
    cumulativeGasUsed: cumulative,
    gasUsed: cumulative - ctx.previousCumulative,
    effectiveGasPrice: effectiveGasPrice(tx, ctx.baseFee),
    from,
    to: tx.to?.bytes,
    contractAddress:
      tx.to === undefined ? generateAddress(from, bigIntToUnpaddedBytes(nonce)) : undefined,
    transactionHash: hashOf(tx),
    logsBloom: receipt.bitvector,
    logs,
    blobGasUsed: isBlob ? BigInt(blobCount) * GAS_PER_BLOB : undefined,
    blobGasPrice: isBlob ? ctx.blobGasPrice : undefined,
    ...(ctx.op === undefined ? {} : { op: opFields(tx, ctx.op) }),
  };
}

export function blobGasPriceOf(block: Pick<Block, "header">, common: Common): bigint | undefined {
  return common.isActivatedEIP(4844) ? block.header.getBlobGasPrice() : undefined;
}

export function buildReceipts(
  block: Block,
  receipts: readonly TxReceipt[],
  common: Common,
): ReceiptRecord[] {
  const blobGasPrice = blobGasPriceOf(block, common);
  let previousCumulative = 0n;
  return block.transactions.map((tx, i) => {
    const receipt = receipts[i];
    if (receipt === undefined)
      throw new Error(`missing receipt ${i} of block ${block.header.number}`);
    const record = receiptRecord(tx, receipt, {
      baseFee: block.header.baseFeePerGas,
      blobGasPrice,
      previousCumulative,
    });
    previousCumulative = receipt.cumulativeBlockGasUsed;
    return record;
  });
}
