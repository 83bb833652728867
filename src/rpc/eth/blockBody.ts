// What the per-block lookups (transaction and uncle counts, a transaction or an uncle by index)
// read from a resolved block: the pre-confirmed block's lists, or a sealed block's stored body,
// walked without decoding what is not asked for.

import type { RpcBackend } from "../../services/backend.ts";
import type { BlockSelector } from "../../services/blockSelector.ts";
import { quantity } from "../../util/hex.ts";
import { transactionJson, uncleJson } from "../format/block.ts";
import { RawJson } from "../method.ts";
import { type BlockTarget, resolveBlockTarget } from "../resolveBlock.ts";

const ZERO32 = new Uint8Array(32);
/** `[[], []]`: the body of a block made of one header alone (geth's NewBlockWithHeader). */
const EMPTY_BODY = Uint8Array.of(0xc2, 0xc0, 0xc0);

/** Transactions and uncles in a block; undefined when there is no such block. */
export function blockCounts(
  backend: RpcBackend,
  target: BlockTarget | undefined,
): { transactions: number; uncles: number } | undefined {
  if (target === undefined) return undefined;
  // The pre-confirmed block is post-merge: never an uncle.
  if (target.kind === "pending")
    return { transactions: target.block.transactions.length, uncles: 0 };
  const body = backend.chain.bodyRlp(target.number, target.hash);
  return body === undefined ? undefined : backend.decoder.bodyCounts(body);
}

/** A block's count of transactions or of uncles as a quantity; null when there is no such block. */
export function blockCount(
  backend: RpcBackend,
  selector: BlockSelector,
  what: "transactions" | "uncles",
): string | null {
  const counts = blockCounts(backend, resolveBlockTarget(backend, selector));
  return counts === undefined ? null : quantity(counts[what]);
}

/**
 * The transaction at `index` as eth_getTransactionByHash renders it (sender from the stored
 * receipts); null when the block or the index does not exist.
 */
export function transactionAtIndex(
  backend: RpcBackend,
  target: BlockTarget | undefined,
  index: bigint,
): RawJson | null {
  if (target === undefined) return null;
  if (target.kind === "pending") {
    const p = target.block;
    if (index >= BigInt(p.transactions.length)) return null;
    const i = Number(index);
    const from = p.receipts[i]?.from;
    if (from === undefined) return null;
    const op = p.receipts[i]?.op;
    return new RawJson(
      transactionJson(backend.decoder.transaction(p.transactions[i]!.raw), {
        blockHash: ZERO32,
        blockNumber: BigInt(p.base.number),
        blockTimestamp: p.base.timestamp,
        baseFeePerGas: p.base.baseFeePerGas,
        index: i,
        from,
        op,
      }),
    );
  }
  const headerRlp = backend.chain.headerRlp(target.number, target.hash);
  const bodyRlp = backend.chain.bodyRlp(target.number, target.hash);
  if (headerRlp === undefined || bodyRlp === undefined) return null;
  const raws = backend.decoder.bodyTransactions(bodyRlp);
  if (index >= BigInt(raws.length)) return null;
  const i = Number(index);
  const receipt = backend.chain.receipts(target.number, target.hash)?.receipts[i];
  const from = receipt?.from;
  if (from === undefined) return null;
  const header = backend.decoder.header(headerRlp);
  return new RawJson(
    transactionJson(backend.decoder.transaction(raws[i]!), {
      blockHash: target.hash,
      blockNumber: header.number,
      blockTimestamp: header.timestamp,
      baseFeePerGas: header.baseFeePerGas,
      index: i,
      from,
      op: receipt?.op,
    }),
  );
}

/** The uncle at `index` as geth renders it; null when the block or the uncle does not exist. */
export function uncleAtIndex(
  backend: RpcBackend,
  target: BlockTarget | undefined,
  index: bigint,
): RawJson | null {
  if (target === undefined || target.kind === "pending") return null;
  const bodyRlp = backend.chain.bodyRlp(target.number, target.hash);
  if (bodyRlp === undefined) return null;
  const uncles = backend.decoder.bodyUncles(bodyRlp);
  if (index >= BigInt(uncles.length)) return null;
  return new RawJson(uncleJson(backend.decoder.block(uncles[Number(index)]!, EMPTY_BODY)));
}
