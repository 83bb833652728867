// The dev methods' side in the sequencer (anvil's cheat codes), run in its queue between two
// executions:
// - a state write (anvil_setBalance & co.) goes into the block being built and is published at
//   once in a flashblock of its own, recorded with it so a restart replays it in place;
// - evm_snapshot keeps the head and the pre-confirmed part of the block on it; evm_revert
//   unwinds the archive to that head in one write and rebuilds that block from its record;
// - a new time (evm_increaseTime, evm_setNextBlockTimestamp) is for the next block opened: the
//   block being built takes it at once (it is reopened) while it has no transactions, since its
//   timestamp came with its pre-confirmations;
// - anvil_mine seals blocks one after another, `interval` seconds apart.
import type { Common } from "@ethereumjs/common";
import { type BlockTransaction, decodeBlockTransaction } from "../chain/op/blockTx.ts";
import { isDepositTx } from "../chain/op/depositTx.ts";
import type { BlockReceipts } from "../chain/types.ts";
import type { BlockExecutor } from "../exec/blockExecutor.ts";
import { decodeStateWrite, encodeStateWrite } from "../exec/devWrites.ts";
import { withPlaceholderSender } from "../exec/impersonation.ts";
import type {
  FlashblockUpdate,
  PendingTransaction,
  RevertedChain,
  SealedUpdate,
} from "../pending/types.ts";
import type { DevAnswer, DevRequest } from "../services/transactions.ts";
import type { ChainStore, FlashblockRecord } from "../store/chainStore.ts";
import type { RecordedOpening } from "./blockAssembly.ts";
import type { Building } from "./building.ts";
import { type DevState, MAX_TIMESTAMP } from "./devState.ts";

const ZERO32 = new Uint8Array(32);

/** A dev request refused: for its arguments (anvil answers -32602) or for the chain's state. */
export class DevRequestError extends Error {
  readonly code = "DEV_REQUEST";
  constructor(
    message: string,
    readonly rpcCode = -32602,
  ) {
    super(message);
  }
}

/**
 * What the dev requests use of the sequencer (sequencer.ts implements it): its parts, the block
 * being built, and the steps a block is built by. Nothing else of it is reached from here.
 */
export type DevHost = {
  readonly executor: BlockExecutor;
  readonly store: ChainStore;
  readonly common: Common;
  readonly dev: DevState;
  readonly opts: { readonly flashblockIntervalMs: number };
  readonly log: (level: "info", msg: string, fields: Record<string, unknown>) => void;
  /** The block being built; throws when the sequencer is not running. */
  current(): Building;
  /** Makes `b` the block being built (a rebuilt or reopened one). */
  replace(b: Building): void;
  open(recorded?: RecordedOpening): Promise<Building>;
  include(b: Building, tx: BlockTransaction, allowNoBlobs?: boolean): Promise<PendingTransaction>;
  executeWaiting(b: Building, budgetMs?: number): Promise<PendingTransaction[]>;
  flashblockOf(
    b: Building,
    added: PendingTransaction[],
    started: number,
  ): Promise<FlashblockUpdate>;
  publish(update: FlashblockUpdate | SealedUpdate): void;
  publishFlashblock(b: Building, update: FlashblockUpdate, ops?: readonly Uint8Array[]): void;
  tick(forceSeal?: boolean): Promise<void>;
};

/**
 * Publishes what has run since the last flashblock (and, with `flush`, what waits in the pool)
 * in a flashblock now, off the grid; `ops` are recorded after its transactions.
 */
async function flashblockNow(seq: DevHost, ops: Uint8Array[], flush = false): Promise<void> {
  const b = seq.current();
  const started = performance.now();
  const added = b.takeUnpublished();
  if (flush) added.push(...(await seq.executeWaiting(b, Number.POSITIVE_INFINITY)));
  if (added.length === 0 && ops.length === 0) return;
  b.advance();
  seq.publishFlashblock(b, await seq.flashblockOf(b, added, started), ops);
}

/**
 * Builds the block on the head from its recorded flashblocks (a restart, evm_revert, a reopened
 * block): flashblock 0, then each recorded one, its transactions and then its dev writes.
 * `record` writes flashblock 0 (the others are recorded already); `reverted` publishes it as
 * the revert of the chain.
 */
export async function rebuildBlock(
  seq: DevHost,
  records: readonly FlashblockRecord[],
  how: { readonly record: boolean; readonly reverted?: RevertedChain },
): Promise<void> {
  const opening = records[0];
  const b = await seq.open(
    opening === undefined
      ? undefined
      : { timestamp: opening.timestamp, deposits: opening.transactions },
  );
  seq.replace(b);
  // Flashblock 0 holds the block's deposits (OP stack: the L1-info deposit first).
  const first = await seq.flashblockOf(b, b.transactions.slice(), performance.now());
  if (how.reverted !== undefined)
    seq.publish({
      kind: "sealed",
      number: b.base.number - 1,
      hash: b.base.parentHash,
      next: first,
      reverted: how.reverted,
    });
  else if (how.record) seq.publishFlashblock(b, first);
  else seq.publish(first);
  for (const fb of records) {
    if (fb.index === 0) continue;
    const started = performance.now();
    b.resumeAt(fb.index);
    const added: PendingTransaction[] = [];
    // Recorded transactions were accepted once: a placeholder signature stands for its sender.
    for (const raw of fb.transactions) {
      const tx = decodeBlockTransaction(raw, seq.common);
      added.push(
        await seq.include(b, isDepositTx(tx) ? tx : withPlaceholderSender(tx, seq.common), true),
      );
    }
    for (const op of fb.ops) await seq.executor.applyStateWrite(decodeStateWrite(op));
    seq.publish(await seq.flashblockOf(b, added, started));
  }
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
async function dropBlock(seq: DevHost): Promise<void> {
  await seq.current().builder.revert();
  await seq.executor.resetToHead();
}

/**
 * Whether the block being built has run a transaction sent to it: one published after its
 * flashblock 0 (which holds only what opening the block put there), or one not published yet.
 */
function hasSentTransactions(seq: DevHost, b: Building): boolean {
  if (b.unpublishedCount > 0) return true;
  return seq.store
    .recordedFlashblocks(b.base.number)
    .some((r) => r.index > 0 && r.transactions.length > 0);
}

/** Reopens the block being built at the clock's time, if no transaction was sent to it yet. */
async function reopenIfEmpty(seq: DevHost): Promise<void> {
  const b = seq.current();
  if (hasSentTransactions(seq, b)) return;
  const records = seq.store.recordedFlashblocks(b.base.number);
  await dropBlock(seq);
  const timestamp = seq.dev.clock.take(seq.executor.headBlock().header.timestamp);
  for (const r of records)
    seq.store.recordFlashblock(b.base.number, r.index, timestamp, r.transactions, r.ops);
  await rebuildBlock(
    seq,
    records.map((r) => ({ ...r, timestamp })),
    { record: false },
  );
}

async function snapshot(seq: DevHost): Promise<bigint> {
  // Everything sent before the call is in it.
  await flashblockNow(seq, [], true);
  const b = seq.current();
  return seq.dev.takeSnapshot({
    head: b.base.number - 1,
    headHash: b.base.parentHash,
    records: seq.store.recordedFlashblocks(b.base.number),
    offset: seq.dev.clock.offset,
    next: seq.dev.clock.next,
  });
}

async function revert(seq: DevHost, id: bigint): Promise<boolean> {
  const s = seq.dev.takeBack(id);
  if (s === undefined) return false;
  const hash = seq.store.canonicalHash(s.head);
  if (hash === undefined || Buffer.compare(hash, s.headHash) !== 0) return false;
  const b = seq.current();
  const published = b.transactions.length - b.unpublishedCount;
  const pending: BlockReceipts | undefined =
    published === 0
      ? undefined
      : {
          blockNumber: b.base.number,
          blockHash: ZERO32,
          blockTimestamp: b.base.timestamp,
          receipts: b.receipts.slice(0, published),
        };
  await b.builder.revert();
  const blocks = seq.store.revertTo(s.head, s.records);
  await seq.executor.resetToHead();
  seq.dev.clock.offset = s.offset;
  seq.dev.clock.next = s.next;
  await rebuildBlock(seq, s.records, { record: false, reverted: { blocks, pending } });
  seq.log("info", "reverted", { block: s.head, dropped: blocks.length, snapshot: Number(id) });
  return true;
}

/** The timestamp the next block opened must be above (anvil: at least). */
function previousTimestamp(seq: DevHost): bigint {
  const b = seq.current();
  return hasSentTransactions(seq, b) ? b.base.timestamp : seq.executor.headBlock().header.timestamp;
}

async function setNextTimestamp(seq: DevHost, timestamp: bigint): Promise<void> {
  // anvil's refusal (it draws the line at 2^64 - 1): a block at MAX_TIMESTAMP has no child.
  if (timestamp >= MAX_TIMESTAMP) throw new DevRequestError("The timestamp is too big");
  const previous = previousTimestamp(seq);
  if (timestamp < previous)
    throw new DevRequestError(
      `Timestamp error: ${timestamp} is lower than previous block's timestamp`,
    );
  // anvil takes an equal one; a block's timestamp must be above its parent's (geth, the engine API).
  if (timestamp === previous)
    throw new DevRequestError(
      `Timestamp error: ${timestamp} is equal to previous block's timestamp; a block's timestamp must be above its parent's`,
    );
  seq.dev.clock.next = timestamp;
  await reopenIfEmpty(seq);
}

async function mine(
  seq: DevHost,
  blocks: bigint,
  interval: bigint | undefined,
  timestamp: bigint | undefined,
): Promise<void> {
  if (timestamp !== undefined) await setNextTimestamp(seq, timestamp);
  for (let i = 0n; i < blocks; i++) {
    if (interval !== undefined) {
      // The first block `interval` later than the clock (as anvil), each next one exactly
      // `interval` after it (the wall clock may pass a second meanwhile).
      if (i === 0n) seq.dev.clock.offset += interval;
      else seq.dev.clock.next = seq.executor.headBlock().header.timestamp + interval;
      await reopenIfEmpty(seq);
    }
    await seq.tick(true);
  }
}

export async function control(seq: DevHost, request: DevRequest): Promise<DevAnswer> {
  switch (request.op) {
    case "write":
      await seq.executor.applyStateWrite(request.write);
      await flashblockNow(seq, [encodeStateWrite(request.write)]);
      return {};
    case "impersonate":
      seq.dev.impersonate(request.address, request.on);
      return {};
    case "autoImpersonate":
      seq.dev.autoImpersonate = request.on;
      return {};
    case "impersonation":
      return { accounts: seq.dev.impersonatedAccounts(), auto: seq.dev.autoImpersonate };
    case "snapshot":
      return { id: await snapshot(seq) };
    case "revert":
      return { reverted: await revert(seq, request.id) };
    case "increaseTime":
      seq.dev.clock.offset += request.seconds;
      await reopenIfEmpty(seq);
      return { offset: seq.dev.clock.offset };
    case "setNextTimestamp":
      await setNextTimestamp(seq, request.timestamp);
      return {};
    case "mine":
      await mine(seq, request.blocks, request.interval, request.timestamp);
      return {};
    case "reset":
      // The chain source replaces the whole sequencer: it never reaches one.
      throw new DevRequestError("anvil_reset is handled by the chain source");
  }
}
