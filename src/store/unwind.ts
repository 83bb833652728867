// Takes the archive back to an earlier block (evm_revert): everything the later blocks wrote is
// removed and the plain state they changed is restored from their change sets, newest block
// first, inside the caller's one write transaction (a crash leaves the old chain or the new one).
// Content-addressed tables (code, trieNodes) keep their entries: they are shared by hash, and
// the target block's state root still finds all of its nodes.
import type { BlockReceipts } from "../chain/types.ts";
import { copyBytes } from "../util/hex.ts";
import { decodeReceipts } from "./codec.ts";
import { shardAt, shardLength } from "./historyShard.ts";
import {
  accountChangeKey,
  accountHistoryKey,
  blockKey,
  storageChangeKey,
  storageKey,
  storageShardKey,
  u64Key,
} from "./keys.ts";
import type { KvTable } from "./lmdb.ts";
import { encodeSlotRow, RECENT, slotRowHasOlderShards, slotRowShard } from "./slotRow.ts";

export type UnwindTables = {
  readonly canonical: KvTable;
  readonly blockNumbers: KvTable;
  readonly headers: KvTable;
  readonly bodies: KvTable;
  readonly receipts: KvTable;
  readonly txLookup: KvTable;
  readonly accounts: KvTable;
  readonly slots: KvTable;
  readonly accountChangeSets: KvTable;
  readonly accountHistory: KvTable;
  readonly storageChanges: KvTable;
  readonly storageHistoryIndex: KvTable;
  readonly logAddresses: KvTable;
  readonly logTopics: KvTable;
  readonly devWrites: KvTable;
};

const NO_ADDRESS = new Uint8Array(20);
const NO_SLOT = new Uint8Array(32);
const EMPTY = new Uint8Array(0);

function numberedKey(prefix: Uint8Array, number: number): Uint8Array {
  const out = new Uint8Array(prefix.length + 8);
  out.set(prefix, 0);
  out.set(u64Key(number), prefix.length);
  return out;
}

/** Every key of `table` in [start, end), copied (removing while iterating is not safe). */
function keysIn(table: KvTable, start: Uint8Array, end: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const { key } of table.range(start, end)) out.push(copyBytes(key));
  return out;
}

/**
 * The slot's row without its newest change (made by `number`): value back to `before`, the
 * number dropped from its newest shard (an older full shard moves back into the row when that
 * one empties), the pre-values refilled from the change sets; no change left: no row.
 */
function unwindSlot(
  t: UnwindTables,
  address: Uint8Array,
  slot: Uint8Array,
  number: number,
  before: Uint8Array,
): void {
  const key = storageKey(address, slot);
  const row = t.slots.get(key);
  if (row === undefined) return;
  let shard = copyBytes(slotRowShard(row));
  let older = slotRowHasOlderShards(row);
  const n = shardLength(shard);
  if (n === 0 || shardAt(shard, n - 1) !== number)
    throw new Error(`slot history out of order: block ${number} is not the slot's newest change`);
  shard = shard.subarray(0, (n - 1) * 6);
  if (shardLength(shard) === 0 && older) {
    // The newest full shard becomes the row's shard again.
    const start = storageShardKey(address, slot, 0);
    const end = storageShardKey(address, slot, Number.MAX_SAFE_INTEGER);
    const last = t.storageHistoryIndex.last(start, end);
    if (last !== undefined) {
      shard = copyBytes(last.value);
      t.storageHistoryIndex.remove(copyBytes(last.key));
    }
    older = t.storageHistoryIndex.first(start, end) !== undefined;
  }
  const length = shardLength(shard);
  if (length === 0) {
    t.slots.remove(key);
    return;
  }
  const recent: Uint8Array[] = [];
  for (let i = Math.max(0, length - RECENT); i < length; i++) {
    const pre = t.storageChanges.get(storageChangeKey(shardAt(shard, i), address, slot));
    recent.push(pre === undefined ? EMPTY : copyBytes(pre));
  }
  t.slots.put(key, encodeSlotRow(before, recent, shard, older));
}

/**
 * Removes one block (the head) and restores the state before it; returns its receipts. On a
 * forked chain (`forked`), an account's first write recorded the upstream's value as its before:
 * with that write gone the chain never wrote the account, so it has no row (reads go back to the
 * upstream; a row would say the chain's own trie holds it, which it does not).
 */
function unwindBlock(t: UnwindTables, number: number, forked: boolean): BlockReceipts | undefined {
  const numberKey = u64Key(number);
  const hash = t.canonical.get(numberKey);
  if (hash === undefined) return undefined;
  const key = blockKey(number, hash);
  const stored = t.receipts.get(key);
  const receipts = stored === undefined ? undefined : decodeReceipts(stored, number, hash);
  for (const r of receipts?.receipts ?? []) {
    t.txLookup.remove(r.transactionHash);
    for (const log of r.logs) {
      t.logAddresses.remove(numberedKey(log.address, number));
      for (const topic of log.topics) t.logTopics.remove(numberedKey(topic, number));
    }
  }
  for (const accountKey of keysIn(
    t.accountChangeSets,
    accountChangeKey(number, NO_ADDRESS),
    accountChangeKey(number + 1, NO_ADDRESS),
  )) {
    const address = accountKey.subarray(8, 28);
    const historyKey = accountHistoryKey(address, number);
    const before = t.accountHistory.get(historyKey);
    const firstWrite =
      forked && t.accountHistory.first(accountHistoryKey(address, 0), historyKey) === undefined;
    if (before === undefined || before.length === 0 || firstWrite) t.accounts.remove(address);
    else t.accounts.put(address, before);
    t.accountHistory.remove(historyKey);
    t.accountChangeSets.remove(accountKey);
  }
  for (const { key: changeKey, value } of [
    ...t.storageChanges.range(
      storageChangeKey(number, NO_ADDRESS, NO_SLOT),
      storageChangeKey(number + 1, NO_ADDRESS, NO_SLOT),
    ),
  ].map((e) => ({ key: copyBytes(e.key), value: copyBytes(e.value) }))) {
    const address = changeKey.subarray(8, 28);
    const slot = changeKey.subarray(28, 60);
    t.storageChanges.remove(changeKey);
    unwindSlot(t, address, slot, number, value);
  }
  t.devWrites.remove(numberKey);
  t.headers.remove(key);
  t.bodies.remove(key);
  t.receipts.remove(key);
  t.blockNumbers.remove(hash);
  t.canonical.remove(numberKey);
  return receipts;
}

/**
 * Removes blocks `head` down to `target + 1`; the caller writes the new head in the same
 * transaction. Returns the removed blocks' receipts, oldest block first.
 */
export function unwindBlocks(
  t: UnwindTables,
  head: number,
  target: number,
  forked: boolean,
): BlockReceipts[] {
  const removed: BlockReceipts[] = [];
  for (let n = head; n > target; n--) {
    const receipts = unwindBlock(t, n, forked);
    if (receipts !== undefined) removed.unshift(receipts);
  }
  return removed;
}
