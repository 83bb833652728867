// One block's rows in the archive's tables: header, body, receipts, its log index, canonical and
// transaction lookups, the state it changed (plain state, change sets, history) and its trie
// nodes. The caller runs it inside its one write transaction, with the head moved last.
import type { BlockWrite } from "../chain/types.ts";
import { encodeAccount, encodeDevWrites, encodeReceipts } from "./codec.ts";
import { SHARD_CAPACITY, shardAppend, shardLast, shardLength } from "./historyShard.ts";
import {
  accountChangeKey,
  accountHistoryKey,
  blockKey,
  flashblockKey,
  storageChangeKey,
  storageKey,
  storageShardKey,
  txLocation,
  u64Key,
} from "./keys.ts";
import type { KvTable } from "./lmdb.ts";
import { indexBlockLogs } from "./logIndex.ts";
import {
  encodeSlotRow,
  RECENT,
  slotRowHasOlderShards,
  slotRowRecentValues,
  slotRowShard,
} from "./slotRow.ts";

export type BlockWriteTables = {
  readonly headers: KvTable;
  readonly bodies: KvTable;
  readonly receipts: KvTable;
  readonly canonical: KvTable;
  readonly blockNumbers: KvTable;
  readonly txLookup: KvTable;
  readonly accounts: KvTable;
  readonly slots: KvTable;
  readonly code: KvTable;
  readonly accountChangeSets: KvTable;
  readonly accountHistory: KvTable;
  readonly trieNodes: KvTable;
  readonly preconfirmations: KvTable;
  readonly storageChanges: KvTable;
  readonly storageHistoryIndex: KvTable;
  readonly logAddresses: KvTable;
  readonly logTopics: KvTable;
  readonly devWrites: KvTable;
  readonly localStateRoots: KvTable;
};

const EMPTY = new Uint8Array(0);

/** Every row of block `b` but the head's move (the caller's, last, in the same write). */
export function writeBlockTables(t: BlockWriteTables, b: BlockWrite): void {
  const key = blockKey(b.number, b.hash);
  const numberKey = u64Key(b.number);
  t.headers.put(key, b.headerRlp);
  t.bodies.put(key, b.bodyRlp);
  t.receipts.put(key, encodeReceipts(b.timestamp, b.receipts));
  indexBlockLogs(t, b.number, b.receipts);
  t.canonical.put(numberKey, b.hash);
  t.blockNumbers.put(b.hash, numberKey);
  for (const [i, h] of b.transactionHashes.entries()) t.txLookup.put(h, txLocation(b.number, i));
  for (const c of b.accountChanges) {
    t.accountChangeSets.put(accountChangeKey(b.number, c.address), EMPTY);
    t.accountHistory.put(
      accountHistoryKey(c.address, b.number),
      c.before === undefined ? EMPTY : encodeAccount(c.before),
    );
    if (c.after === undefined) t.accounts.remove(c.address);
    else t.accounts.put(c.address, encodeAccount(c.after));
  }
  for (const c of b.storageChanges) {
    t.storageChanges.put(storageChangeKey(b.number, c.address, c.slot), c.before);
    writeSlot(t, c.address, c.slot, c.before, c.after, b.number);
  }
  for (const [hashHex, bytecode] of b.code) t.code.put(Buffer.from(hashHex, "hex"), bytecode);
  if (b.localStateRoot !== undefined) t.localStateRoots.put(key, b.localStateRoot);
  if (b.devWrites !== undefined && b.devWrites.length > 0)
    t.devWrites.put(numberKey, encodeDevWrites(b.devWrites));
  for (const [keyHex, node] of b.trieNodes) t.trieNodes.put(Buffer.from(keyHex, "hex"), node);
  // The block's pre-confirmation record ends with it, in the same write.
  for (const { key } of t.preconfirmations.range(
    flashblockKey(b.number, 0),
    flashblockKey(b.number + 1, 0),
  )) {
    t.preconfirmations.remove(key);
  }
}

/**
 * The slot's new row: value `after`, `number` appended to its newest history shard, and
 * `before` to the pre-values it keeps (the oldest dropped past RECENT).
 */
function writeSlot(
  t: BlockWriteTables,
  address: Uint8Array,
  slot: Uint8Array,
  before: Uint8Array,
  after: Uint8Array,
  number: number,
) {
  const key = storageKey(address, slot);
  const row = t.slots.get(key);
  let shard = row === undefined ? new Uint8Array(0) : slotRowShard(row);
  let recent = row === undefined ? [] : slotRowRecentValues(row);
  let older = row !== undefined && slotRowHasOlderShards(row);
  if (shardLength(shard) === 0 || shardLast(shard) !== number) {
    if (shardLength(shard) >= SHARD_CAPACITY) {
      // Full: it moves to the index, keyed by its highest number; a new shard starts.
      t.storageHistoryIndex.put(storageShardKey(address, slot, shardLast(shard)), shard);
      shard = new Uint8Array(0);
      recent = [];
      older = true;
    }
    shard = shardAppend(shard, number);
    recent.push(before);
    if (recent.length > RECENT) recent.shift();
  }
  t.slots.put(key, encodeSlotRow(after, recent, shard, older));
}
