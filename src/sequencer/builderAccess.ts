// Two reaches into the EVM library's BlockBuilder that the sequencer needs (internals of
// @ethereumjs/vm 10.x; the dev end-to-end tests exercise both on every run).
import type { TypedTransaction } from "@ethereumjs/tx";
import type { BlockBuilder } from "@ethereumjs/vm";

export function builderTransactions(builder: BlockBuilder): TypedTransaction[] {
  return (builder as unknown as { transactions: TypedTransaction[] }).transactions;
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
  const holder = builder as unknown as { transactions: TypedTransaction[] };
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
