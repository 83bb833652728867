// Reaches into the EVM library's BlockBuilder that the sequencer (and the OP-stack importer)
// need (internals of @ethereumjs/vm 10.x; the dev end-to-end tests exercise them on every run).
import { Block, type BlockOptions, createBlock, type HeaderData } from "@ethereumjs/block";
import type { TypedTransaction } from "@ethereumjs/tx";
import type { BlockBuilder } from "@ethereumjs/vm";
import type { DepositTx } from "../chain/op/depositTx.ts";
import type { DepositResult, OpExecution } from "../exec/op/opExecution.ts";

/** A block's transactions: signed ones, and an OP-stack chain's deposits. */
export type BlockTransaction = TypedTransaction | DepositTx;

type Internals = {
  transactions: BlockTransaction[];
  transactionResults: unknown[];
  gasUsed: bigint;
  headerData: HeaderData;
  blockOpts: BlockOptions;
};

function internals(builder: BlockBuilder): Internals {
  return builder as unknown as Internals;
}

export function builderTransactions(builder: BlockBuilder): BlockTransaction[] {
  return internals(builder).transactions;
}

/**
 * BlockBuilder.addTransaction re-creates the whole block (every transaction so far) just to give
 * the new one its block context, which makes a block of n transactions cost O(n²). The context
 * needs only the header, so the builder is shown an empty list for the call and the new
 * transaction is appended to the real one afterwards. Roots are still computed from the full
 * list at seal, and every sealed block is verified against them.
 */
export async function addTransaction(
  builder: BlockBuilder,
  tx: TypedTransaction,
  allowNoBlobs: boolean,
) {
  const holder = internals(builder);
  const all = holder.transactions;
  holder.transactions = [];
  try {
    const result = await builder.addTransaction(tx, { allowNoBlobs });
    all.push(...holder.transactions);
    return result;
  } finally {
    holder.transactions = all;
  }
}

/** Runs a deposit onto the block being built (the library's builder knows no deposits). */
export async function addDeposit(
  builder: BlockBuilder,
  tx: DepositTx,
  op: OpExecution,
): Promise<DepositResult> {
  const holder = internals(builder);
  const gasLimit = BigInt(holder.headerData.gasLimit as bigint);
  if (tx.gasLimit > gasLimit - holder.gasUsed)
    throw new Error("tx has a higher gas limit than the remaining gas in the block");
  // The block context the library's builder gives a transaction: the header so far.
  const block = createBlock(
    { header: { ...holder.headerData, gasUsed: holder.gasUsed } },
    holder.blockOpts,
  );
  const result = await op.runDeposit(tx, block, holder.gasUsed);
  holder.transactions.push(tx);
  holder.transactionResults.push(result);
  holder.gasUsed += result.totalGasSpent;
  return result;
}

/**
 * The block of what was built, with the transaction and receipt roots given (they are grown
 * one entry at a time, never rebuilt). The library would re-create every transaction from its
 * fields, which it cannot do for a deposit: it builds the header from an empty list and the
 * block is assembled around that header.
 */
export async function sealBuilder(
  builder: BlockBuilder,
  roots: { readonly transactions: Uint8Array; readonly receipts: Uint8Array },
): Promise<Block> {
  Object.assign(builder, {
    transactionsTrie: async () => roots.transactions,
    receiptTrie: async () => roots.receipts,
  });
  const holder = internals(builder);
  const all = holder.transactions;
  holder.transactions = [];
  try {
    const { block } = await builder.build();
    return new Block(block.header, all as TypedTransaction[], [], block.withdrawals, {
      common: block.common,
    });
  } finally {
    holder.transactions = all;
  }
}
