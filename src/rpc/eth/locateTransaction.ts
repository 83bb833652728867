import type { BlockReceipts } from "../../chain/types.ts";
import type { RpcBackend } from "../../services/backend.ts";
import { type BlockTarget, livePending } from "../resolveBlock.ts";
import { blockReceipts } from "./blockResult.ts";

export type TransactionPosition = {
  readonly target: BlockTarget;
  readonly index: number;
};

export type TransactionLocation = TransactionPosition & {
  readonly receipts: BlockReceipts;
};

/**
 * Sealed blocks first, then the pre-confirmed block (as Base: no gap right after a seal), unless
 * the node answers lookups from sealed blocks only.
 */
export function transactionPosition(
  backend: RpcBackend,
  hash: Uint8Array,
): TransactionPosition | undefined {
  const sealed = backend.chain.transactionLocation(hash);
  if (sealed !== undefined) {
    return {
      target: { kind: "sealed", number: sealed.number, hash: sealed.blockHash },
      index: sealed.index,
    };
  }
  if (!backend.preconfirmedReceipts) return undefined;
  const pending = livePending(backend);
  const index = pending?.transactionIndex(hash);
  if (pending === undefined || index === undefined) return undefined;
  return { target: { kind: "pending", block: pending }, index };
}

/** Where a transaction is, with its block's receipts. */
export function locateTransaction(
  backend: RpcBackend,
  hash: Uint8Array,
): TransactionLocation | undefined {
  const position = transactionPosition(backend, hash);
  if (position === undefined) return undefined;
  const receipts = blockReceipts(backend, position.target);
  return receipts === undefined ? undefined : { ...position, receipts };
}
