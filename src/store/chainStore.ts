// The archive's read and write interfaces over the tables. Every sealed block is one atomic write.
import type { Forkchoice } from "../chain/forkchoice.ts";
import type {
  AccountChange,
  AccountRecord,
  BlockReceipts,
  BlockWrite,
  StorageChange,
} from "../chain/types.ts";
import { bytesToHex, copyBytes, hexToBytes } from "../util/hex.ts";
import { perRun } from "../util/perRun.ts";
import {
  decodeAccount,
  decodeDevWrites,
  decodeFlashblockRecord,
  decodeReceipts,
  encodeAccount,
  encodeDevWrites,
  encodeFlashblockRecord,
  encodeReceipts,
} from "./codec.ts";
import { SHARD_CAPACITY, shardAppend, shardLast, shardLength } from "./historyShard.ts";
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
} from "./keys.ts";
import type { KvEnv, KvTable } from "./lmdb.ts";
import { indexBlockLogs, logCandidateBlocks } from "./logIndex.ts";
import {
  encodeSlotRow,
  RECENT,
  slotRowHasOlderShards,
  slotRowIsZero,
  slotRowRecentValues,
  slotRowShard,
} from "./slotRow.ts";
import { createStateReads } from "./stateReads.ts";
import { META_KEYS, SCHEMA_VERSION } from "./tables.ts";
import { unwindBlocks } from "./unwind.ts";

/** A recorded flashblock of an unsealed block (table 16). */
export type FlashblockRecord = {
  readonly index: number;
  readonly timestamp: bigint;
  readonly transactions: Uint8Array[];
  /** Dev state changes applied after the transactions (src/sequencer/devOps.ts). */
  readonly ops: Uint8Array[];
};

const EMPTY = new Uint8Array(0);
const NO_ADDRESS = new Uint8Array(20);
const NO_SLOT = new Uint8Array(32);
const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();
/** Past every pre-confirmation key. */
const UNSEALED_END = new Uint8Array(12).fill(0xff);

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
  /**
   * Whether this chain ever wrote the account (it has a row or a history entry): on a forked
   * chain, an account it never wrote is the upstream's at the fork block.
   */
  accountKnown(address: Uint8Array): boolean;
  /** Whether this chain ever wrote the slot (it has a row). */
  slotKnown(address: Uint8Array, slot: Uint8Array): boolean;
};

/** A forked chain's base block F (meta forkBase): its state beyond the chain's writes is the upstream's. */
export type StoredForkBase = {
  readonly chainId: bigint;
  readonly number: number;
  readonly hash: Uint8Array;
  /** The state root of the chain's own (partial) trie at F, where its blocks build from. */
  readonly stateRoot: Uint8Array;
};

export type ChainStore = ChainReader &
  StateReader & {
    readonly env: KvEnv;
    /** Current-state storage slots of an account (for storage wipes). */
    currentStorageSlots(address: Uint8Array): Uint8Array[];
    currentAccount(address: Uint8Array): AccountRecord | undefined;
    currentStorage(address: Uint8Array, slot: Uint8Array): Uint8Array;
    trieNode(key: Uint8Array): Uint8Array | undefined;
    /** A dev block's state writes, each after that many of its transactions (BlockWrite). */
    devWrites(number: number): Array<readonly [number, Uint8Array]>;
    /** What block `number` changed (its change sets), each value before and after the block. */
    blockChanges(number: number): { accounts: AccountChange[]; storage: StorageChange[] };
    writeBlock(block: BlockWrite): void;
    /** Durably records a flashblock of the unsealed block `number` before it is published. */
    recordFlashblock(
      number: number,
      index: number,
      timestamp: bigint,
      transactions: readonly Uint8Array[],
      ops?: readonly Uint8Array[],
    ): void;
    /** The recorded flashblocks of an unsealed block, in index order. */
    recordedFlashblocks(number: number): FlashblockRecord[];
    /**
     * evm_revert, in one write: blocks above `target` removed and the state they changed
     * restored, every unsealed block's record replaced by `pending` (block target + 1's), and
     * the head set to `target`. Returns the removed blocks' receipts, oldest first.
     */
    revertTo(target: number, pending: readonly FlashblockRecord[]): BlockReceipts[];
    setForkchoice(fc: Forkchoice): void;
    setChainConfig(json: string): void;
    /** A forked chain's base block, or undefined for a chain of its own. */
    forkBase(): StoredForkBase | undefined;
    setForkBase(base: StoredForkBase): void;
    /**
     * Forgets the whole chain in one write (anvil_reset, dev --fresh on a fork): every table but
     * the upstream cache (24–34), which holds only upstream values and stays valid, and the
     * content-addressed trie nodes and code. Inside writeAtomically: with the rest of that write.
     */
    clearChain(): void;
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
    devWrites: env.table("devWrites"),
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

  const { currentAccount, currentStorage, accountAt, storageAt } = createStateReads(
    t,
    headNumber,
    env.generation,
    opts.slotRowCacheBytes,
  );

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
    accountKnown(address) {
      if (t.accounts.getFast(address) !== undefined) return true;
      const end = new Uint8Array(28).fill(0xff);
      end.set(address, 0);
      return t.accountHistory.first(accountHistoryKey(address, 0), end) !== undefined;
    },
    slotKnown: (address, slot) => t.slots.getFast(storageKey(address, slot)) !== undefined,

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
    devWrites(number) {
      const v = t.devWrites.get(u64Key(number));
      return v === undefined ? [] : decodeDevWrites(v);
    },
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
        t.meta.put(META_KEY_BYTES.head, numberKey);
      });
    },
    recordFlashblock(number, index, timestamp, transactions, ops) {
      env.writeAtomically(() =>
        t.preconfirmations.put(
          flashblockKey(number, index),
          encodeFlashblockRecord(timestamp, transactions, ops),
        ),
      );
    },
    revertTo(target, pending) {
      return env.writeAtomically(() => {
        const head = headNumber() ?? 0;
        if (target > head)
          throw new Error(`cannot revert to block ${target} above the head ${head}`);
        const removed = unwindBlocks(t, head, target);
        const records = [
          ...t.preconfirmations.range(flashblockKey(target + 1, 0), UNSEALED_END),
        ].map((e) => copyBytes(e.key));
        for (const key of records) t.preconfirmations.remove(key);
        for (const r of pending)
          t.preconfirmations.put(
            flashblockKey(target + 1, r.index),
            encodeFlashblockRecord(r.timestamp, r.transactions, r.ops),
          );
        const numberKey = u64Key(target);
        t.meta.put(META_KEY_BYTES.head, numberKey);
        for (const key of ["safe", "finalized"] as const) {
          const at = metaNumber(t.meta, key);
          if (at !== undefined && at > target) t.meta.put(META_KEY_BYTES[key], numberKey);
        }
        return removed;
      });
    },
    recordedFlashblocks(number) {
      const out: FlashblockRecord[] = [];
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
    forkBase() {
      const v = metaGet(t.meta, "forkBase");
      return v === undefined ? undefined : decodeForkBase(utf8Decoder.decode(v));
    },
    setForkBase(base) {
      env.writeAtomically(() =>
        t.meta.put(META_KEY_BYTES.forkBase, utf8.encode(encodeForkBase(base))),
      );
    },
    clearChain() {
      env.writeAtomically(() => {
        // Trie nodes and code are content-addressed: a new chain's trie may share nodes with
        // the old one's, and keeping them costs only space.
        for (const [name, table] of Object.entries(t))
          if (name !== "trieNodes" && name !== "code") table.clear();
        t.meta.put(META_KEY_BYTES.schemaVersion, u64Key(SCHEMA_VERSION));
      });
    },
  };
}

function encodeForkBase(b: StoredForkBase): string {
  return JSON.stringify({
    chainId: b.chainId.toString(),
    number: b.number,
    hash: bytesToHex(b.hash),
    stateRoot: bytesToHex(b.stateRoot),
  });
}

function decodeForkBase(json: string): StoredForkBase {
  const o = JSON.parse(json) as {
    chainId: string;
    number: number;
    hash: string;
    stateRoot: string;
  };
  return {
    chainId: BigInt(o.chainId),
    number: o.number,
    hash: hexToBytes(o.hash),
    stateRoot: hexToBytes(o.stateRoot),
  };
}
