// Receipts are the node's job: the EVM library gives cumulative gas, logs and status; per-tx gas,
// effective gas price, sender, contract address and blob fields are derived here, as geth does.
import type { Block } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { bigIntToUnpaddedBytes, generateAddress } from "@ethereumjs/util";
import type { RunBlockResult } from "@ethereumjs/vm";
import type { Log, ReceiptRecord } from "../chain/types.ts";

const GAS_PER_BLOB = 131072n;

type AnyTx = Block["transactions"][number];

function effectiveGasPrice(tx: AnyTx, baseFee: bigint | undefined): bigint {
  if ("maxFeePerGas" in tx && "maxPriorityFeePerGas" in tx) {
    const tip = tx.maxPriorityFeePerGas as bigint;
    const cap = tx.maxFeePerGas as bigint;
    const base = baseFee ?? 0n;
    return cap < base + tip ? cap : base + tip;
  }
  return (tx as { gasPrice: bigint }).gasPrice;
}

export function buildReceipts(
  block: Block,
  result: RunBlockResult,
  common: Common,
): ReceiptRecord[] {
  const out: ReceiptRecord[] = [];
  let previousCumulative = 0n;
  const blobGasPrice = common.isActivatedEIP(4844) ? block.header.getBlobGasPrice() : undefined;
  block.transactions.forEach((tx, i) => {
    const receipt = result.receipts[i];
    if (receipt === undefined)
      throw new Error(`missing receipt ${i} of block ${block.header.number}`);
    const from = tx.getSenderAddress().bytes;
    const cumulative = receipt.cumulativeBlockGasUsed;
    const logs: Log[] = receipt.logs.map(([address, topics, data]) => ({ address, topics, data }));
    const isBlob = tx.type === 3;
    const blobHashes = isBlob ? (tx as { blobVersionedHashes: unknown[] }).blobVersionedHashes : [];
    out.push({
      type: tx.type,
      status: "status" in receipt ? receipt.status : undefined,
      root: "stateRoot" in receipt ? receipt.stateRoot : undefined,
      cumulativeGasUsed: cumulative,
      gasUsed: cumulative - previousCumulative,
      effectiveGasPrice: effectiveGasPrice(tx, block.header.baseFeePerGas),
      from,
      to: tx.to?.bytes,
      contractAddress:
        tx.to === undefined ? generateAddress(from, bigIntToUnpaddedBytes(tx.nonce)) : undefined,
      transactionHash: tx.hash(),
      logsBloom: receipt.bitvector,
      logs,
      blobGasUsed: isBlob ? BigInt(blobHashes.length) * GAS_PER_BLOB : undefined,
      blobGasPrice: isBlob ? blobGasPrice : undefined,
    });
    previousCumulative = cumulative;
  });
  return out;
}
