import type { AccountChange, BlockReceipts, BlockWrite, StorageChange } from "../chain/types.ts";
import { FlashnodeError } from "../util/errors.ts";
import { bytesToUnprefixedHex, copyBytes } from "../util/hex.ts";
import { perRun } from "../util/perRun.ts";
import type { ChainStore, FlashblockRecord, NextOpening } from "./archive.ts";
import { writeBlockTables } from "./blockWrite.ts";
import {
  decodeAccount,
  decodeDevWrites,
  decodeFlashblockRecord,
  decodeReceipts,
  encodeFlashblockRecord,
} from "./codec.ts";
import { decodeForkBase, encodeForkBase } from "./forkBaseCodec.ts";
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
  u64Key,
} from "./keys.ts";
import type { KvEnv, KvTable } from "./lmdb.ts";
import { logCandidateBlocks } from "./logIndex.ts";
import { slotRowIsZero } from "./slotRow.ts";
import { createStateReads } from "./stateReads.ts";
import { scanCurrentState } from "./stateScan.ts";
import { META_KEYS, SCHEMA_VERSION } from "./tables.ts";
import { unwindBlocks } from "./unwind.ts";

const _EMPTY = new Uint8Array(0);
const NO_ADDRESS = new Uint8Array(20);
const NO_SLOT = new Uint8Array(32);
const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();
/** Past every pre-confirmation key. */
const UNSEALED_END = new Uint8Array(12).fill(0xff);
/** How many blocks' decoded receipts a store keeps (recentReceipts). */
const RECENT_RECEIPT_BLOCKS = 16;

export class SchemaMismatchError extends FlashnodeError {
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
    localStateRoots: env.table("localStateRoots"),
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
  /** A block's tables, the next block's flashblock 0 if given, and the head: one write's puts. */
  const blockWrite = (b: BlockWrite, next: NextOpening | undefined) => {
    writeBlockTables(t, b);
    if (next !== undefined)
      t.preconfirmations.put(
        flashblockKey(b.number + 1, 0),
        encodeFlashblockRecord(next.timestamp, next.transactions, []),
      );
    t.meta.put(META_KEY_BYTES.head, u64Key(b.number));
  };

  const { currentAccount, currentStorage, accountAt, storageAt } = createStateReads(
    t,
    headNumber,
    env.generation,
    opts.slotRowCacheBytes,
  );

  // The decoded receipts of the blocks read last: a transaction's receipt is found through its
  // block's receipts, and clients poll the newest blocks' over and over (a block of 600 decoded
  // once per poll made each lookup O(block)). A block's receipts never change: keyed by its hash.
  const recentReceipts = new Map<string, BlockReceipts>();
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
      const key = blockKey(number, hash);
      const id = bytesToUnprefixedHex(key);
      const kept = recentReceipts.get(id);
      if (kept !== undefined) return kept;
      // A copy: the decoded records keep views into these bytes.
      const v = t.receipts.get(key);
      if (v === undefined) return undefined;
      const decoded = decodeReceipts(v, number, hash);
      recentReceipts.set(id, decoded);
      if (recentReceipts.size > RECENT_RECEIPT_BLOCKS)
        recentReceipts.delete(recentReceipts.keys().next().value as string);
      return decoded;
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
    currentState: () => scanCurrentState(t),
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
    localStateRoot: (number, hash) => t.localStateRoots.get(blockKey(number, hash)),
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

    writeBlock(b, next) {
      env.writeAtomically(() => blockWrite(b, next));
    },
    writeBlockSoon(b, next) {
      return env.writeAtomicallySoon(() => blockWrite(b, next));
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
        const forked = metaGet(t.meta, "forkBase") !== undefined;
        const removed = unwindBlocks(t, head, target, forked);
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
