// State at the end of a block, read from plain state and history (archive.ts's StateReader, as
// chainStore.ts implements it): accounts from their history, storage from the slot rows, the
// older history shards and the change sets, with the slot rows as of the head in a memory cache.
import type { AccountRecord } from "../chain/types.ts";
import { copyBytes } from "../util/hex.ts";
import { perRun } from "../util/perRun.ts";
import { decodeAccount } from "./codec.ts";
import { shardAt, shardFirstAfter, shardIndexAfter, shardLength } from "./historyShard.ts";
import { u64Key, writeU64 } from "./keys.ts";
import type { KvTable } from "./lmdb.ts";
import {
  slotRowHasOlderShards,
  slotRowRecent,
  slotRowRecentCount,
  slotRowShard,
  slotRowValue,
} from "./slotRow.ts";
import { NO_ROW, SlotRowCache } from "./slotRowCache.ts";

export type StateReadTables = {
  readonly canonical: KvTable;
  readonly accounts: KvTable;
  readonly slots: KvTable;
  readonly accountHistory: KvTable;
  readonly storageChanges: KvTable;
  readonly storageHistoryIndex: KvTable;
};

/** Account and storage reads, current and as of a block (`head`: as in StateReader). */
export type StateReads = {
  currentAccount(address: Uint8Array): AccountRecord | undefined;
  currentStorage(address: Uint8Array, slot: Uint8Array): Uint8Array;
  accountAt(address: Uint8Array, block: number, head?: number): AccountRecord | undefined;
  storageAt(address: Uint8Array, slot: Uint8Array, block: number, head?: number): Uint8Array;
};

const EMPTY = new Uint8Array(0);

// Scratch keys of historical reads (no garbage per read): lmdb-js copies the keys and range
// bounds it is given when a read starts, and each read ends before the next begins.
/** address ‖ slot: a slot's row. */
const SLOT_KEY = new Uint8Array(52);
/** address ‖ slot ‖ block + 1 and address ‖ slot ‖ 2^64-1: the seek for an older full shard. */
const SHARD_SEEK = new Uint8Array(60);
const SHARD_END = new Uint8Array(60).fill(0xff);
/** number ‖ address ‖ slot: a change-set entry. */
const CHANGE_KEY = new Uint8Array(60);
/** address ‖ block, and address ‖ 2^64-1. */
const ACCOUNT_HISTORY_START = new Uint8Array(28);
const ACCOUNT_HISTORY_END = new Uint8Array(28).fill(0xff);

/**
 * The reads over `t`; `headNumber` is the store's per-run head, `generation` its env's (the row
 * cache learns the head once per run), `slotRowCacheBytes` the cache's budget (ChainStoreOptions).
 */
export function createStateReads(
  t: StateReadTables,
  headNumber: () => number | undefined,
  generation: () => number,
  slotRowCacheBytes: number | undefined,
): StateReads {
  function currentAccount(address: Uint8Array): AccountRecord | undefined {
    const v = t.accounts.getFast(address);
    return v === undefined ? undefined : decodeAccount(v);
  }

  function currentStorage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    SLOT_KEY.set(address, 0);
    SLOT_KEY.set(slot, 20);
    return readSlotValue(SLOT_KEY);
  }
  function readSlotValue(key: Uint8Array): Uint8Array {
    const row = t.slots.getFast(key);
    return row === undefined ? EMPTY : slotRowValue(row);
  }

  // Slot rows as of the head go through a memory cache; once per run it learns the snapshot's head.
  const rowCache = new SlotRowCache(slotRowCacheBytes);
  const rowCacheAt = perRun(() => {
    const n = headNumber();
    if (n !== undefined) rowCache.atHead(n, t.canonical.getFast(u64Key(n)));
    return n;
  }, generation);
  /** The slot's row (its own copy), or NO_ROW. */
  function readSlotRow(key: Uint8Array): Uint8Array {
    const row = t.slots.getFast(key);
    return row === undefined ? NO_ROW : copyBytes(row);
  }
  function rowValue(row: Uint8Array): Uint8Array {
    return row === NO_ROW ? EMPTY : slotRowValue(row);
  }
  function headStorage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    rowCacheAt();
    SLOT_KEY.set(address, 0);
    SLOT_KEY.set(slot, 20);
    return rowCache.value(SLOT_KEY, readSlotRow, rowValue);
  }

  function accountAt(
    address: Uint8Array,
    block: number,
    head = headNumber(),
  ): AccountRecord | undefined {
    if (head === undefined || block >= head) return currentAccount(address);
    // The first change after `block` holds the value the account had at the end of `block`.
    ACCOUNT_HISTORY_START.set(address, 0);
    writeU64(ACCOUNT_HISTORY_START, 20, block + 1);
    ACCOUNT_HISTORY_END.set(address, 0);
    const hit = t.accountHistory.first(ACCOUNT_HISTORY_START, ACCOUNT_HISTORY_END);
    if (hit === undefined) return currentAccount(address);
    return hit.value.length === 0 ? undefined : decodeAccount(hit.value);
  }
  function storageAt(
    address: Uint8Array,
    slot: Uint8Array,
    block: number,
    head = headNumber(),
  ): Uint8Array {
    if (head === undefined || block >= head) return headStorage(address, slot);
    // The first change after `block` holds the value the slot had at the end of `block`; no
    // change after it: the current value. No row: never written, zero at every block.
    rowCacheAt();
    SLOT_KEY.set(address, 0);
    SLOT_KEY.set(slot, 20);
    const row = rowCache.row(SLOT_KEY, readSlotRow);
    if (row === NO_ROW) return EMPTY;
    const newest = slotRowShard(row);
    const n = shardLength(newest);
    const i = shardIndexAfter(newest, block);
    if (i === n) return slotRowValue(row);
    let changedAt = shardAt(newest, i);
    const older = i === 0 && slotRowHasOlderShards(row);
    // A change among the row's newest: its pre-value is in the row, no second read.
    const recent = slotRowRecentCount(row);
    if (!older && i >= n - recent) return slotRowRecent(row, i - (n - recent));
    if (older) {
      // An older, full shard may hold an earlier change after `block`: the first one whose
      // highest number is above `block` is the only one that can.
      SHARD_SEEK.set(SLOT_KEY, 0);
      writeU64(SHARD_SEEK, 52, block + 1);
      SHARD_END.set(SLOT_KEY, 0);
      const older = t.storageHistoryIndex.first(SHARD_SEEK, SHARD_END);
      if (older !== undefined) changedAt = shardFirstAfter(older.value, block) ?? changedAt;
    }
    writeU64(CHANGE_KEY, 0, changedAt);
    CHANGE_KEY.set(SLOT_KEY, 8);
    return t.storageChanges.get(CHANGE_KEY) ?? EMPTY;
  }

  return { currentAccount, currentStorage, accountAt, storageAt };
}
