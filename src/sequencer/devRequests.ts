// The dev methods' side in the sequencer (anvil's cheat codes), run in its queue between two
// executions:
// - a state write (anvil_setBalance & co., anvil_loadState) goes into the block being built and
//   is published at once in a flashblock of its own, recorded with it so a restart replays it in
//   place; with automine that block is then sealed, so `latest` shows it as anvil's does;
// - evm_snapshot keeps the head and the pre-confirmed part of the block on it; evm_revert
//   unwinds the archive to that head in one write and rebuilds that block from its record;
// - a new time (evm_increaseTime, evm_setNextBlockTimestamp) or base fee
//   (anvil_setNextBlockBaseFeePerGas) is the block being built's: it is rebuilt with it, with
//   the transactions it pre-confirmed, and the stream says it was replaced (rebuild.ts);
// - anvil_dropTransaction takes a transaction out of the pool, or out of the block being built;
// - anvil_mine seals blocks one after another, `interval` seconds apart;
// - evm_setAutomine and evm_setIntervalMining switch how blocks are sealed (mining.ts).
import { encodeStateWrite } from "../exec/devWrites.ts";
import type { DevAnswer, DevRequest } from "../services/transactions.ts";
import { type DevHost, DevRequestError, flashblockNow } from "./devHost.ts";
import { MAX_TIMESTAMP } from "./devState.ts";
import { withAutomine, withIntervalMining } from "./mining.ts";
import { hasSentTransactions, preconfirmedReceipts, rebuildBlock, reopen } from "./rebuild.ts";
import { dumpState, loadState } from "./stateFile.ts";

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
    nextBaseFee: seq.dev.nextBaseFee,
  });
}

async function revert(seq: DevHost, id: bigint): Promise<boolean> {
  const s = seq.dev.takeBack(id);
  if (s === undefined) return false;
  const hash = seq.store.canonicalHash(s.head);
  if (hash === undefined || Buffer.compare(hash, s.headHash) !== 0) return false;
  const b = seq.current();
  const pending = preconfirmedReceipts(b);
  await b.builder.revert();
  const blocks = seq.store.revertTo(s.head, s.records);
  await seq.executor.resetToHead();
  seq.dev.clock.offset = s.offset;
  seq.dev.clock.next = s.next;
  seq.dev.nextBaseFee = s.nextBaseFee;
  await rebuildBlock(seq, s.records, { record: false, reverted: { blocks, pending } });
  seq.log("info", "reverted", { block: s.head, dropped: blocks.length, snapshot: Number(id) });
  return true;
}

async function setNextTimestamp(seq: DevHost, timestamp: bigint): Promise<void> {
  // anvil's refusal (it draws the line at 2^64 - 1): a block at MAX_TIMESTAMP has no child.
  if (timestamp >= MAX_TIMESTAMP) throw new DevRequestError("The timestamp is too big");
  // The block being built takes the new time: it is above the head's.
  const previous = seq.executor.headBlock().header.timestamp;
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
  await reopen(seq);
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
      // The first block `interval` later than the clock (as anvil; an exact timestamp asked
      // for wins), each next one exactly `interval` after it (the wall clock may pass a second
      // meanwhile).
      if (i === 0n) seq.dev.clock.offset += interval;
      else seq.dev.clock.next = seq.executor.headBlock().header.timestamp + interval;
      await reopen(seq);
    }
    await seq.tick(true);
  }
}

/** A state write done: with automine, sealed at once (`latest` shows it, as on anvil). */
async function written(seq: DevHost): Promise<void> {
  if (seq.mining.automine) await seq.tick(true);
}

async function setAutomine(seq: DevHost, on: boolean): Promise<void> {
  seq.setMining(withAutomine(seq.mining, on));
  // What is pre-confirmed already is sealed now: automine's `latest` holds what was sent.
  if (on && hasSentTransactions(seq, seq.current())) await seq.tick(true);
}

async function dropTransaction(seq: DevHost, hash: Uint8Array): Promise<boolean> {
  if (seq.pool.remove(hash)) return true;
  return reopen(seq, hash);
}

export async function control(
  seq: DevHost,
  request: Exclude<DevRequest, { readonly op: "submitUnsigned" }>,
): Promise<DevAnswer> {
  switch (request.op) {
    case "write":
      await seq.executor.applyStateWrite(request.write);
      await flashblockNow(seq, [encodeStateWrite(request.write)]);
      await written(seq);
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
      await reopen(seq);
      return { offset: seq.dev.clock.offset };
    case "setNextTimestamp":
      await setNextTimestamp(seq, request.timestamp);
      return {};
    case "mine":
      await mine(seq, request.blocks, request.interval, request.timestamp);
      return {};
    case "setAutomine":
      await setAutomine(seq, request.on);
      return {};
    case "setIntervalMining":
      seq.setMining(withIntervalMining(request.seconds));
      return {};
    case "mining":
      return {
        automine: seq.mining.automine,
        ...(seq.mining.intervalMs === undefined ? {} : { intervalMs: seq.mining.intervalMs }),
      };
    case "metadata":
      return { instanceId: seq.dev.instanceId, snapshots: seq.dev.snapshotList() };
    case "setNextBaseFee":
      seq.dev.nextBaseFee = request.baseFee;
      await reopen(seq);
      return {};
    case "dropTransaction":
      return { dropped: await dropTransaction(seq, request.hash) };
    case "dumpState":
      return { state: await dumpState(seq) };
    case "loadState":
      await loadState(seq, request.state);
      await written(seq);
      return {};
    case "reset":
      // The chain source replaces the whole sequencer: it never reaches one.
      throw new DevRequestError("anvil_reset is handled by the chain source");
  }
}
