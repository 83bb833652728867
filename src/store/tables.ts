// Every table of the archive, numbered. Ids are permanent: a retired table keeps its line as a
// comment and its id is never reused. Numbers in keys are big-endian so LMDB's byte order is
// numeric order (range scans and "seek the first change after N" depend on it).

export type TableDef = { readonly id: number; readonly name: string; readonly layout: string };

export const TABLES = {
  meta: {
    id: 1,
    name: "meta",
    layout: "utf8 key → value (schema version, chain config, head, forkchoice)",
  },
  canonical: { id: 2, name: "canonical", layout: "number u64 → block hash (32)" },
  blockNumbers: { id: 3, name: "blockNumbers", layout: "block hash (32) → number u64" },
  headers: { id: 4, name: "headers", layout: "number u64 ‖ hash (32) → header RLP" },
  bodies: {
    id: 5,
    name: "bodies",
    layout: "number u64 ‖ hash (32) → body RLP [txs, uncles, withdrawals?]",
  },
  receipts: {
    id: 6,
    name: "receipts",
    layout: "number u64 ‖ hash (32) → stored receipts (codec.ts)",
  },
  txLookup: { id: 7, name: "txLookup", layout: "tx hash (32) → number u64 ‖ tx index u32" },
  accounts: { id: 8, name: "accounts", layout: "address (20) → account (codec.ts), current state" },
  // 9 storage (address ‖ slot → current value): retired in schema 3 for table 20.
  code: { id: 10, name: "code", layout: "code hash (32) → bytecode" },
  accountChangeSets: {
    id: 11,
    name: "accountChangeSets",
    layout: "number u64 ‖ address (20) → (empty): accounts changed by the block",
  },
  // 12 storageChangeSets (number ‖ address ‖ slot → empty): retired in schema 3 for table 18.
  accountHistory: {
    id: 13,
    name: "accountHistory",
    layout: "address (20) ‖ number u64 → account before that block changed it (empty = absent)",
  },
  // 14 storageHistory (address ‖ slot ‖ number → pre-value): retired in schema 3 for 18 + 19.
  trieNodes: {
    id: 15,
    name: "trieNodes",
    layout: "node hash (32) → trie node RLP; only for computing state roots, never read by RPC",
  },
  preconfirmations: {
    id: 16,
    name: "preconfirmations",
    layout:
      "number u64 ‖ flashblock index u32 → RLP [timestamp, [tx…]]: the unsealed block's published flashblocks, removed by its seal",
  },
  // 17 storageLastChange (address ‖ slot → newest change): retired in schema 3, now the last
  // number of the slot's row in table 20.
  storageChanges: {
    id: 18,
    name: "storageChanges",
    layout:
      "number u64 ‖ address (20) ‖ slot (32) → value before that block changed it (empty = zero): the block's storage change set",
  },
  storageHistoryIndex: {
    id: 19,
    name: "storageHistoryIndex",
    layout:
      "address (20) ‖ slot (32) ‖ highest number u64 → a full history shard: the numbers u48 of 256 blocks that changed the slot, ascending (historyShard.ts); the newer ones are in the slot's row of `slots`",
  },
  slots: {
    id: 20,
    name: "slots",
    layout:
      "address (20) ‖ slot (32) → flags u8 (value length; top bit: older full shards exist) ‖ current value (leading zeros trimmed; empty = zero) ‖ count u8 ‖ the pre-values of the slot's newest `count` (≤ 8) changes, each length u8 ‖ bytes ‖ the slot's newest history shard (slotRow.ts): every slot ever written",
  },
  logAddresses: {
    id: 21,
    name: "logAddresses",
    layout:
      "address (20) ‖ number u64 → (empty): the blocks holding a log emitted by the address (logIndex.ts)",
  },
  logTopics: {
    id: 22,
    name: "logTopics",
    layout:
      "topic (32) ‖ number u64 → (empty): the blocks holding a log with the topic, in any position (logIndex.ts)",
  },
  devWrites: {
    id: 23,
    name: "devWrites",
    layout:
      "number u64 → RLP [[transaction index u32, write]…]: the dev methods' state writes a dev block carries (anvil_setBalance & co., src/exec/devWrites.ts), each before the transaction of that index (= count: after the last); debug_trace* replays them",
  },
  // 24–34: what a fork (or a follower) fetched from its upstream chain (src/upstream/forkCache.ts).
  // Upstream values only, never a local write; keyed by the upstream's chain id and the fork
  // block's hash (F), never by URL, so a restart or a second fork at F fetches nothing again and
  // another F or chain cannot collide.
  upstreamAccounts: {
    id: 24,
    name: "upstreamAccounts",
    layout:
      "chain id u64 ‖ F (32) ‖ address (20) → account at F (codec.ts encodeAccount; nonce 0, balance 0, no code = absent)",
  },
  upstreamStorage: {
    id: 25,
    name: "upstreamStorage",
    layout:
      "chain id u64 ‖ F (32) ‖ address (20) ‖ slot (32) → value at F (leading zeros trimmed; empty = zero)",
  },
  upstreamCode: {
    id: 26,
    name: "upstreamCode",
    layout:
      "code hash (32) → bytecode fetched from an upstream (content-addressed: any chain, any F)",
  },
  upstreamBlocks: {
    id: 27,
    name: "upstreamBlocks",
    layout:
      "chain id u64 ‖ block hash (32) → the upstream's eth_getBlockByHash(hash, true) JSON (utf8), as sent",
  },
  upstreamReceipts: {
    id: 28,
    name: "upstreamReceipts",
    layout: "chain id u64 ‖ block hash (32) → the block's receipts JSON array (utf8), as sent",
  },
  upstreamCanonical: {
    id: 29,
    name: "upstreamCanonical",
    layout: "chain id u64 ‖ F (32) ‖ number u64 → hash (32) of F's ancestor at that number",
  },
  upstreamTransactions: {
    id: 30,
    name: "upstreamTransactions",
    layout:
      "chain id u64 ‖ F (32) ‖ tx hash (32) → eth_getTransactionByHash JSON (utf8); empty = not in a block at or below F",
  },
  upstreamTxReceipts: {
    id: 31,
    name: "upstreamTxReceipts",
    layout:
      "chain id u64 ‖ F (32) ‖ tx hash (32) → eth_getTransactionReceipt JSON (utf8); empty = not in a block at or below F",
  },
  upstreamLogs: {
    id: 32,
    name: "upstreamLogs",
    layout:
      "chain id u64 ‖ F (32) ‖ keccak256(filter JSON with its block range) (32) → eth_getLogs JSON array (utf8), ranges at or below F only",
  },
  upstreamForkPoints: {
    id: 33,
    name: "upstreamForkPoints",
    layout:
      "chain id u64 ‖ number u64 → F (32): the block a fork at that number was pinned to (an offline start with --fork-chain-id finds it here)",
  },
  upstreamAnswers: {
    id: 34,
    name: "upstreamAnswers",
    layout:
      "chain id u64 ‖ keccak256(method ‖ params JSON, its block pinned by a hash at or below F) (32) → the upstream's answer JSON (utf8): calls forwarded below the fork (eth_call, eth_getProof, state at a past block), which never change",
  },
  localStateRoots: {
    id: 35,
    name: "localStateRoots",
    layout:
      "number u64 ‖ hash (32) → the root of this node's own trie after the block: a followed chain's blocks carry the upstream's whole-state root, this node's trie holds only what the chain wrote since F",
  },
} as const satisfies Record<string, TableDef>;

export type TableName = keyof typeof TABLES;

/** Bumped when a table's layout changes incompatibly; a datadir from another version is refused. */
export const SCHEMA_VERSION = 5;

export const META_KEYS = {
  schemaVersion: "schemaVersion",
  chainConfig: "chainConfig",
  head: "head",
  safe: "safe",
  finalized: "finalized",
  /**
   * A chain forked from a live one (dev --fork-url, follow): JSON {chainId, number, hash,
   * stateRoot} of its base block F, whose state beyond what the chain wrote is the upstream's.
   */
  forkBase: "forkBase",
  /** Who writes the archive's blocks (producer.ts): "sequencer" (dev) or "replica". */
  producer: "producer",
  /**
   * The token of the last write committed on lmdb's write thread (lmdb.ts writeAtomicallySoon):
   * the writer sees its write is visible when the token reads back, before the flush to disk.
   */
  soonWrite: "soonWrite",
} as const;
