// Building the block on the head again from its recorded flashblocks: after a restart, after
// evm_revert, and when a dev method changes the block being built (a new time, a base fee, a
// transaction dropped). Its transactions run again in their order, each flashblock's dev writes
// after them. When transactions sent to it had been pre-confirmed, the stream says the block was
// replaced as evm_revert says it: one update that drops the pre-confirmed view (their logs
// `removed`) and carries the new flashblock 0 (a new payload_id at a height already seen).
import type { TypedTransaction } from "@ethereumjs/tx";
import { type BlockTransaction, decodeBlockTransaction } from "../chain/op/blockTx.ts";
import { isDepositTx } from "../chain/op/depositTx.ts";
import type { BlockReceipts } from "../chain/types.ts";
import { decodeStateWrite } from "../exec/devWrites.ts";
import { withPlaceholderSender } from "../exec/impersonation.ts";
import type { PendingTransaction, RevertedChain } from "../pending/types.ts";
import type { FlashblockRecord } from "../store/archive.ts";
import { keccak256 } from "../util/crypto.ts";
import { bytesToHex, equalBytes } from "../util/hex.ts";
import type { Building } from "./building.ts";
import { type DevHost, flashblockNow } from "./devHost.ts";

const ZERO32 = new Uint8Array(32);

export type RebuildOptions = {
  /** Writes flashblock 0's record (a restart: the others are recorded already). */
  readonly record?: boolean;
  /** Writes every flashblock's record anew, with what ran again (a reopened block). */
  readonly rerecord?: boolean;
  /** Publishes flashblock 0 as the replacement of the chain's pending part (or of blocks). */
  readonly reverted?: RevertedChain;
  /** A new time: the L1-info deposit is made for it rather than taken from the record. */
  readonly freshOpening?: boolean;
  /** Told of each transaction that could not run again (reopened blocks only). */
  readonly onFailed?: (tx: BlockTransaction, reason: string) => void;
  /**
   * The same block again, after a step on it failed midway: nothing published or recorded (the
   * readers show it already), its payload id kept, going on at this flashblock index.
   */
  readonly quiet?: { readonly payloadId: string; readonly index: number };
};

/**
 * Builds the block on the head from its recorded flashblocks: flashblock 0, then each recorded
 * one, its transactions and then its dev writes.
 */
export async function rebuildBlock(
  seq: DevHost,
  records: readonly FlashblockRecord[],
  how: RebuildOptions,
): Promise<void> {
  const opening = records[0];
  const b = await seq.open(
    opening === undefined
      ? undefined
      : {
          timestamp: opening.timestamp,
          deposits: opening.transactions,
          freshL1Info: how.freshOpening === true,
          generation: how.rerecord === true ? seq.dev.nextGeneration() : 0,
          ...(how.quiet === undefined ? {} : { payloadId: how.quiet.payloadId }),
        },
  );
  seq.replace(b);
  // Flashblock 0 holds the block's deposits (OP stack: the L1-info deposit first).
  const first = await seq.flashblockOf(b, b.transactions.slice(), performance.now());
  const rec = (index: number, txs: readonly PendingTransaction[], ops: readonly Uint8Array[]) =>
    seq.store.recordFlashblock(
      b.base.number,
      index,
      b.base.timestamp,
      txs.map((t) => t.raw),
      ops,
    );
  if (how.rerecord === true) rec(0, first.transactions, []);
  // A quiet rebuild's flashblocks are out already.
  if (how.quiet === undefined) {
    if (how.reverted !== undefined)
      seq.publish({
        kind: "sealed",
        number: b.base.number - 1,
        hash: b.base.parentHash,
        next: first,
        reverted: how.reverted,
      });
    else if (how.record === true) seq.publishFlashblock(b, first);
    else seq.publish(first);
  }
  for (const fb of records) {
    if (fb.index === 0) continue;
    const started = performance.now();
    b.resumeAt(fb.index);
    const added: PendingTransaction[] = [];
    // Recorded transactions were accepted once: a placeholder signature stands for its sender.
    for (const raw of fb.transactions) {
      const tx = decodeBlockTransaction(raw, seq.common);
      const run = isDepositTx(tx) ? tx : withPlaceholderSender(tx, seq.common);
      if (how.onFailed === undefined) {
        added.push(await seq.include(b, run, true));
        continue;
      }
      try {
        added.push(await seq.include(b, run, true));
      } catch (e) {
        how.onFailed(run, (e as Error).message);
      }
    }
    for (const op of fb.ops) await seq.executor.applyStateWrite(decodeStateWrite(op));
    if (how.rerecord === true) rec(fb.index, added, fb.ops);
    const update = await seq.flashblockOf(b, added, started);
    if (how.quiet === undefined) seq.publish(update);
  }
  // Empty flashblocks are not recorded: it goes on after the last one published.
  if (how.quiet !== undefined) b.resumeAt(how.quiet.index);
  // The next flashblock is one interval away, not (index + 1) intervals.
  b.regrid(performance.now(), seq.opts.flashblockIntervalMs);
}

/** A block's dev writes from its flashblock record, each after the transactions before it. */
export function devWritesOf(
  records: readonly FlashblockRecord[],
): Array<readonly [number, Uint8Array]> {
  const out: Array<readonly [number, Uint8Array]> = [];
  let transactions = 0;
  for (const r of records) {
    transactions += r.transactions.length;
    for (const op of r.ops) out.push([transactions, op]);
  }
  return out;
}

/** The block being built, dropped: its builder reverted and the executor back on the head. */
export async function dropBlock(seq: DevHost): Promise<void> {
  await seq.current().builder.revert();
  await seq.executor.resetToHead();
}

/**
 * Whether the block being built has run a transaction sent to it: one published after its
 * flashblock 0 (which holds only what opening the block put there), or one not published yet.
 */
export function hasSentTransactions(seq: DevHost, b: Building): boolean {
  if (b.unpublishedCount > 0) return true;
  return seq.store
    .recordedFlashblocks(b.base.number)
    .some((r) => r.index > 0 && r.transactions.length > 0);
}

/** The pre-confirmed part of the block being built, as a revert drops it (zero block hash). */
export function preconfirmedReceipts(b: Building): BlockReceipts | undefined {
  const published = b.transactions.length - b.unpublishedCount;
  return published === 0
    ? undefined
    : {
        blockNumber: b.base.number,
        blockHash: ZERO32,
        blockTimestamp: b.base.timestamp,
        receipts: b.receipts.slice(0, published),
      };
}

/**
 * Builds the block being built again on the same head, at the clock's time (a new time, a new
 * base fee: devState.ts), with everything sent before the call, less `drop` (a transaction's
 * hash) if given. A transaction that cannot run again (a later nonce of a dropped one's sender,
 * one the new time or base fee refuses) goes back to the pool. Returns whether `drop` was there.
 */
export async function reopen(seq: DevHost, drop?: Uint8Array): Promise<boolean> {
  await flashblockNow(seq, [], true);
  const b = seq.current();
  const records = seq.store.recordedFlashblocks(b.base.number);
  let found = false;
  const kept = records.map((r) => {
    if (drop === undefined) return r;
    const transactions = r.transactions.filter((raw) => !equalBytes(keccak256(raw), drop));
    if (transactions.length !== r.transactions.length) found = true;
    return { ...r, transactions };
  });
  if (drop !== undefined && !found) return false;
  const sent = hasSentTransactions(seq, b);
  const pending = preconfirmedReceipts(b);
  await dropBlock(seq);
  const timestamp = seq.dev.clock.take(seq.executor.headBlock().header.timestamp);
  // Back in the pool in front of what waits there, in block order.
  const waitAgain: TypedTransaction[] = [];
  await rebuildBlock(
    seq,
    kept.map((r) => ({ ...r, timestamp })),
    {
      rerecord: true,
      freshOpening: timestamp !== b.base.timestamp,
      ...(sent ? { reverted: { blocks: [], pending } } : {}),
      onFailed: (tx, reason) => {
        // A nonce ahead of the sender's now (its earlier transaction dropped) waits in the pool.
        if (!isDepositTx(tx) && /nonce/i.test(reason)) waitAgain.push(tx);
        else
          seq.log("warn", "transaction dropped at re-execution", {
            hash: bytesToHex(tx.hash()),
            reason,
          });
      },
    },
  );
  seq.pool.restore(waitAgain);
  return found;
}
