import type { BlockReceipts } from "../../chain/types.ts";
import { bytesToUnprefixedHex } from "../../util/hex.ts";
import type { RpcBackend } from "../backend.ts";
import { type BlockTarget, livePending } from "../resolveBlock.ts";
import { blockReceipts } from "./blockResult.ts";

export type TransactionLocation = {
  readonly target: BlockTarget;
  readonly index: number;
  readonly receipts: BlockReceipts;
};

/**
 * Sealed blocks first, then the pre-confirmed block (as Base: no gap right after a seal), unless
 * the node answers lookups from sealed blocks only.
 */
export function locateTransaction(
  backend: RpcBackend,
  hash: Uint8Array,
): TransactionLocation | undefined {
  const sealed = backend.chain.transactionLocation(hash);
  if (sealed !== undefined) {
    const target: BlockTarget = { kind: "sealed", number: sealed.number, hash: sealed.blockHash };
    const receipts = blockReceipts(backend, target);
    return receipts === undefined ? undefined : { target, index: sealed.index, receipts };
  }
  if (!backend.preconfirmedReceipts) return undefined;
  const pending = livePending(backend);
  const index = pending?.txIndex.get(bytesToUnprefixedHex(hash));
  if (pending === undefined || index === undefined) return undefined;
  const target: BlockTarget = { kind: "pending", block: pending };
  return { target, index, receipts: blockReceipts(backend, target)! };
}
