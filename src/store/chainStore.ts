// The archive's read and write interfaces over the tables. Every sealed block is one atomic write.
import type {
  AccountChange,
  AccountRecord,
  BlockReceipts,
  BlockWrite,
  StorageChange,
} from "../chain/types.ts";
import { copyBytes } from "../util/hex.ts";
import { perRun } from "../util/perRun.ts";
import {
  decodeAccount,
  decodeFlashblockRecord,
  decodeReceipts,
  encodeAccount,
  encodeFlashblockRecord,
  encodeReceipts,
} from "./codec.ts";
import {
  SHARD_CAPACITY,
  shardAppend,
  shardAt,
  shardFirstAfter,
  shardIndexAfter,
  shardLast,
  shardLength,
} from "./historyShard.ts";
import {
  accountChangeKey,
  accountHistoryKey,
  blockKey,
  flashblockKey,
  readFlashblockIndex,
  readTxLocation,
  readU64,
  storageChangeKey,
  storageKey,
  storageShardKey,
  txLocation,
  u64Key,
  writeU64,
} from "./keys.ts";
import type { KvEnv, KvTable } from "./lmdb.ts";
import { indexBlockLogs, logCandidateBlocks } from "./logIndex.ts";
import {
  encodeSlotRow,
  RECENT,
  slotRowHasOlderShards,
  slotRowIsZero,
  slotRowRecent,
  slotRowRecentCount,
  slotRowRecentValues,
  slotRowShard,
  slotRowValue,
} from "./slotRow.ts";
import { NO_ROW, SlotRowCache } from "./slotRowCache.ts";
import { META_KEYS, SCHEMA_VERSION } from "./tables.ts";

const EMPTY = new Uint8Array(0);
const NO_ADDRESS = new Uint8Array(20);
const NO_SLOT = new Uint8Array(32);
const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();
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

export type Forkchoice = {
  readonly safe: number | undefined;
  readonly finalized: number | undefined;
};

/** Read access to blocks, receipts and transaction locations. */
export type ChainReader = {
  /** Number of the newest sealed block; undefined for an empty archive. */
  headNumber(): number | undefined;
  canonicalHash(number: number): Uint8Array | undefined;
  /** Number of a stored block by hash (canonical or not). */
  blockNumber(hash: Uint8Array): number | undefined;
  headerRlp(number: number, hash: Uint8Array): Uint8Array | undefined;
  bodyRlp(number: number, hash: Uint8Array): Uint8Array | undefined;
  receipts(number: number, hash: Uint8Array): BlockReceipts | undefined;
  /**
   * Canonical blocks in [from, to] that may hold a log from one of `addresses` (any when
   * undefined) with, per position, one of the topics (undefined: wildcard); undefined when
   * nothing narrows the range (logIndex.ts).
   */
  logBlocks(
    from: number,
    to: number,
    addresses: readonly Uint8Array[] | undefined,
    topics: readonly (readonly Uint8Array[] | undefined)[],
  ): number[] | undefined;
  /** Where a transaction sits in the canonical chain. */
  transactionLocation(
    hash: Uint8Array,
  ): { number: number; index: number; blockHash: Uint8Array } | undefined;
  forkchoice(): Forkchoice;
  chainConfig(): string | undefined;
};

/** State at the end of a given block, read from plain state and history; never from the trie. */
export type StateReader = {
  /** `head`, when the caller has just read it, spares reading it again. */
  account(address: Uint8Array, block: number, head?: number): AccountRecord | undefined;
  /** Value with leading zeros trimmed (empty = zero). */
  storage(address: Uint8Array, slot: Uint8Array, block: number, head?: number): Uint8Array;
  code(codeHash: Uint8Array): Uint8Array | undefined;
};

export type ChainStore = ChainReader &
  StateReader & {
    readonly env: KvEnv;
    /** Current-state storage slots of an account (for storage wipes). */
    currentStorageSlots(address: Uint8Array): Uint8Array[];
    currentAccount(address: Uint8Array): AccountRecord | undefined;
    currentStorage(address: Uint8Array, slot: Uint8Array): Uint8Array;
    trieNode(key: Uint8Array): Uint8Array | undefined;
    /** What block `number` changed (its change sets), each value before and after the block. */
    blockChanges(number: number): { accounts: AccountChange[]; storage: StorageChange[] };
    writeBlock(block: BlockWrite): void;
    /** Durably records a flashblock of the unsealed block `number` before it is published. */
    recordFlashblock(
      number: number,
      index: number,
      timestamp: bigint,
      transactions: readonly Uint8Array[],
    ): void;
    /** The recorded flashblocks of an unsealed block, in index order. */
    recordedFlashblocks(
      number: number,
    ): Array<{ index: number; timestamp: bigint; transactions: Uint8Array[] }>;
    setForkchoice(fc: Forkchoice): void;
    setChainConfig(json: string): void;
  };

export class SchemaMismatchError extends Error {
  readonly code = "SCHEMA_MISMATCH";
}

type MetaKey = keyof typeof META_KEYS;
/** The meta keys as bytes, encoded once: the head is read on every RPC call. */
const META_KEY_BYTES = Object.fromEntries(
  Object.entries(META_KEYS).map(([name, key]) => [name, utf8.encode(key)]),
) as Record<MetaKey, Uint8Array>;

function metaGet(meta: KvTable, key: MetaKey): Uint8Array | undefined {
  return meta.get(META_KEY_BYTES[key]);
}

function metaNumber(meta: KvTable, key: MetaKey): number | undefined {
  // Decoded at once, so LMDB's reused buffer needs no copy.
  const v = meta.getFast(META_KEY_BYTES[key]);
  return v === undefined ? undefined : readU64(v);
}

export type ChainStoreOptions = {
  /** Bytes of slot rows kept in memory as of the head (slotRowCache.ts); 0 reads LMDB each time. */
  readonly slotRowCacheBytes?: number;
};

export function createChainStore(env: KvEnv, opts: ChainStoreOptions = {}): ChainStore {
  const t = {
    meta: env.table("meta"),
    canonical: env.table("canonical"),
    blockNumbers: env.table("blockNumbers"),
    headers: env.table("headers"),
    bodies: env.table("bodies"),
    receipts: env.table("receipts"),
    txLookup: env.table("txLookup"),
    accounts: env.table("accounts"),
    slots: env.table("slots"),
    code: env.table("code"),
    accountChangeSets: env.table("accountChangeSets"),
    accountHistory: env.table("accountHistory"),
    trieNodes: env.table("trieNodes"),
    preconfirmations: env.table("preconfirmations"),
    storageChanges: env.table("storageChanges"),
    storageHistoryIndex: env.table("storageHistoryIndex"),
    logAddresses: env.table("logAddresses"),
    logTopics: env.table("logTopics"),
  };

  const version = metaNumber(t.meta, "schemaVersion");
  if (version === undefined) {
    if (!env.readOnly) {
      env.writeAtomically(() => t.meta.put(META_KEY_BYTES.schemaVersion, u64Key(SCHEMA_VERSION)));
    }
  } else if (version !== SCHEMA_VERSION) {
    throw new SchemaMismatchError(
      `datadir ${env.path} has archive schema version ${version}; this flashnode reads version ${SCHEMA_VERSION} (dev: start over with --fresh; an import: import again into a new datadir)`,
    );
  }

  // The head is read once per synchronous run (a batch's calls share it): the read snapshot
  // cannot change before the run's microtask checkpoint unless this thread writes or refreshes.
  const headNumber = perRun(() => metaNumber(t.meta, "head"), env.generation);

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
  const rowCache = new SlotRowCache(opts.slotRowCacheBytes);
  const rowCacheAt = perRun(() => {
    const n = headNumber();
    if (n !== undefined) rowCache.atHead(n, t.canonical.getFast(u64Key(n)));
    return n;
  }, env.generation);
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

  /**
   * The slot's new row: value `after`, `number` appended to its newest history shard, and
   * `before` to the pre-values it keeps (the oldest dropped past RECENT).
   */
  function writeSlot(
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

  return {
    env,
    headNumber,
    canonicalHash: (number) => t.canonical.get(u64Key(number)),
    blockNumber(hash) {
      const v = t.blockNumbers.getFast(hash);
      return v === undefined ? undefined : readU64(v);
    },
    headerRlp: (number, hash) => t.headers.get(blockKey(number, hash)),
    bodyRlp: (number, hash) => t.bodies.get(blockKey(number, hash)),
    logBlocks: (from, to, addresses, topics) => logCandidateBlocks(t, from, to, addresses, topics),
    receipts(number, hash) {
      // A copy: the decoded records keep views into these bytes.
      const v = t.receipts.get(blockKey(number, hash));
      return v === undefined ? undefined : decodeReceipts(v, number, hash);
    },
    transactionLocation(hash) {
      const v = t.txLookup.getFast(hash);
      if (v === undefined) return undefined;
      const location = readTxLocation(v);
      const blockHash = t.canonical.get(u64Key(location.number));
      return blockHash === undefined ? undefined : { ...location, blockHash };
    },
    forkchoice: () => ({
      safe: metaNumber(t.meta, "safe"),
      finalized: metaNumber(t.meta, "finalized"),
    }),
    chainConfig() {
      const v = metaGet(t.meta, "chainConfig");
      return v === undefined ? undefined : utf8Decoder.decode(v);
    },

    account: accountAt,
    storage: storageAt,
    code: (codeHash) => t.code.get(codeHash),

    currentAccount,
    currentStorage,
    currentStorageSlots(address) {
      const start = storageKey(address, new Uint8Array(32));
      const end = storageKey(address, new Uint8Array(32).fill(0xff));
      const slots: Uint8Array[] = [];
      // Rows of slots now zero stay (they hold history): only non-zero values are current state.
      for (const { key, value } of t.slots.range(start, end))
        if (!slotRowIsZero(value)) slots.push(copyBytes(key, 20, 52));
      const last = t.slots.get(end);
      if (last !== undefined && !slotRowIsZero(last)) slots.push(copyBytes(end, 20, 52));
      return slots;
    },
    trieNode: (key) => t.trieNodes.get(key),
    blockChanges(number) {
      const head = headNumber();
      const accounts: AccountChange[] = [];
      for (const { key } of t.accountChangeSets.range(
        accountChangeKey(number, NO_ADDRESS),
        accountChangeKey(number + 1, NO_ADDRESS),
      )) {
        const address = copyBytes(key, 8, 28);
        const before = t.accountHistory.get(accountHistoryKey(address, number));
        accounts.push({
          address,
          before: before === undefined || before.length === 0 ? undefined : decodeAccount(before),
          after: accountAt(address, number, head),
        });
      }
      const storage: StorageChange[] = [];
      for (const { key, value } of t.storageChanges.range(
        storageChangeKey(number, NO_ADDRESS, NO_SLOT),
        storageChangeKey(number + 1, NO_ADDRESS, NO_SLOT),
      )) {
        const address = copyBytes(key, 8, 28);
        const slot = copyBytes(key, 28, 60);
        storage.push({
          address,
          slot,
          before: copyBytes(value),
          after: storageAt(address, slot, number, head),
        });
      }
      return { accounts, storage };
    },

    writeBlock(b) {
      env.writeAtomically(() => {
        const key = blockKey(b.number, b.hash);
        const numberKey = u64Key(b.number);
        t.headers.put(key, b.headerRlp);
        t.bodies.put(key, b.bodyRlp);
        t.receipts.put(key, encodeReceipts(b.timestamp, b.receipts));
        indexBlockLogs(t, b.number, b.receipts);
        t.canonical.put(numberKey, b.hash);
        t.blockNumbers.put(b.hash, numberKey);
        for (const [i, h] of b.transactionHashes.entries())
          t.txLookup.put(h, txLocation(b.number, i));
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
          writeSlot(c.address, c.slot, c.before, c.after, b.number);
        }
        for (const [hashHex, bytecode] of b.code) t.code.put(Buffer.from(hashHex, "hex"), bytecode);
        for (const [keyHex, node] of b.trieNodes) t.trieNodes.put(Buffer.from(keyHex, "hex"), node);
        // The block's pre-confirmation record ends with it, in the same write.
        for (const { key } of t.preconfirmations.range(
          flashblockKey(b.number, 0),
          flashblockKey(b.number + 1, 0),
        )) {
          t.preconfirmations.remove(key);
        }
        t.meta.put(META_KEY_BYTES.head, numberKey);
      });
    },
    recordFlashblock(number, index, timestamp, transactions) {
      env.writeAtomically(() =>
        t.preconfirmations.put(
          flashblockKey(number, index),
          encodeFlashblockRecord(timestamp, transactions),
        ),
      );
    },
    recordedFlashblocks(number) {
      const out: Array<{ index: number; timestamp: bigint; transactions: Uint8Array[] }> = [];
      for (const { key, value } of t.preconfirmations.range(
        flashblockKey(number, 0),
        flashblockKey(number + 1, 0),
      )) {
        out.push({ index: readFlashblockIndex(key), ...decodeFlashblockRecord(value) });
      }
      return out;
    },
    setForkchoice(fc) {
      env.writeAtomically(() => {
        if (fc.safe !== undefined) t.meta.put(META_KEY_BYTES.safe, u64Key(fc.safe));
        if (fc.finalized !== undefined) t.meta.put(META_KEY_BYTES.finalized, u64Key(fc.finalized));
      });
    },
    setChainConfig(json) {
      env.writeAtomically(() => t.meta.put(META_KEY_BYTES.chainConfig, utf8.encode(json)));
    },
  };
}
