// Receipts are the node's job: the EVM library gives cumulative gas, logs and status; per-tx gas,
// effective gas price, sender, contract address and blob fields are derived here, as geth does.
import type { Block } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import { bigIntToUnpaddedBytes, generateAddress } from "@ethereumjs/util";
import type { TxReceipt } from "@ethereumjs/vm";
import type { Log, ReceiptRecord } from "../chain/types.ts";

const GAS_PER_BLOB = 131072n;

function effectiveGasPrice(tx: TypedTransaction, baseFee: bigint | undefined): bigint {
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
};

export function receiptRecord(
  tx: TypedTransaction,
  receipt: TxReceipt,
  ctx: ReceiptContext,
): ReceiptRecord {
  const from = tx.getSenderAddress().bytes;
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
      tx.to === undefined ? generateAddress(from, bigIntToUnpaddedBytes(tx.nonce)) : undefined,
    transactionHash: tx.hash(),
    logsBloom: receipt.bitvector,
    logs,
    blobGasUsed: isBlob ? BigInt(blobCount) * GAS_PER_BLOB : undefined,
    blobGasPrice: isBlob ? ctx.blobGasPrice : undefined,
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
