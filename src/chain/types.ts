// Domain shapes shared by the store, execution and RPC layers (bytes and bigints, never hex).

export type Log = {
  readonly address: Uint8Array;
  readonly topics: readonly Uint8Array[];
  readonly data: Uint8Array;
};

/** Everything needed to render a receipt without re-reading the block or recovering senders. */
export type ReceiptRecord = {
  readonly type: number;
  /** 1/0 post-Byzantium; undefined when `root` is set. */
  readonly status: number | undefined;
  /** Post-transaction state root, pre-Byzantium only. */
  readonly root: Uint8Array | undefined;
  readonly cumulativeGasUsed: bigint;
  readonly gasUsed: bigint;
  readonly effectiveGasPrice: bigint;
  readonly from: Uint8Array;
  readonly to: Uint8Array | undefined;
  readonly contractAddress: Uint8Array | undefined;
  readonly transactionHash: Uint8Array;
  readonly logsBloom: Uint8Array;
  readonly logs: readonly Log[];
  /** Type-3 transactions only. */
  readonly blobGasUsed: bigint | undefined;
  readonly blobGasPrice: bigint | undefined;
  /** OP-stack chains only: what op-geth adds to a receipt. */
  readonly op?: OpReceiptFields | undefined;
};

/**
 * op-geth's receipt extras: the L1 data fee of a non-deposit transaction, or a deposit's nonce
 * and receipt version (version 1 since Canyon: then both are in the consensus encoding).
 */
export type OpReceiptFields = {
  readonly l1Fee: bigint | undefined;
  readonly l1GasUsed: bigint | undefined;
  readonly l1GasPrice: bigint | undefined;
  readonly l1BlobBaseFee: bigint | undefined;
  readonly l1BaseFeeScalar: bigint | undefined;
  readonly l1BlobBaseFeeScalar: bigint | undefined;
  readonly depositNonce: bigint | undefined;
  readonly depositReceiptVersion: bigint | undefined;
};

/** The receipts of one block plus the block fields every receipt and log carries. */
export type BlockReceipts = {
  readonly blockNumber: number;
  readonly blockHash: Uint8Array;
  readonly blockTimestamp: bigint;
  readonly receipts: readonly ReceiptRecord[];
};

export type AccountRecord = {
  readonly nonce: bigint;
  readonly balance: bigint;
  /** undefined for an account without code. */
  readonly codeHash: Uint8Array | undefined;
};

export type AccountChange = {
  readonly address: Uint8Array;
  readonly before: AccountRecord | undefined;
  readonly after: AccountRecord | undefined;
};

export type StorageChange = {
  readonly address: Uint8Array;
  readonly slot: Uint8Array;
  /** Values with leading zeros trimmed; empty = zero. */
  readonly before: Uint8Array;
  readonly after: Uint8Array;
};

/** One sealed block, exactly as it is committed: the unit of one atomic write. */
export type BlockWrite = {
  readonly number: number;
  readonly hash: Uint8Array;
  readonly headerRlp: Uint8Array;
  readonly bodyRlp: Uint8Array;
  readonly timestamp: bigint;
  readonly transactionHashes: readonly Uint8Array[];
  readonly receipts: readonly ReceiptRecord[];
  readonly accountChanges: readonly AccountChange[];
  readonly storageChanges: readonly StorageChange[];
  readonly code: ReadonlyMap<string, Uint8Array>;
  /** New trie nodes (and other state-root bookkeeping), keyed by their DB key. */
  readonly trieNodes: ReadonlyMap<string, Uint8Array>;
  /**
   * Dev blocks: the dev methods' writes (src/exec/devWrites.ts encodings), each with the number
   * of the block's transactions that ran before it.
   */
  readonly devWrites?: ReadonlyArray<readonly [before: number, write: Uint8Array]>;
  /**
   * A block of a followed chain: the root of this node's own (partial) trie after it, where the
   * header carries the upstream's whole-state root.
   */
  readonly localStateRoot?: Uint8Array;
};

/** A dev method's write straight into the state (anvil_setBalance & co., src/exec/devWrites.ts). */
export type StateWrite =
  | { readonly kind: "balance"; readonly address: Uint8Array; readonly value: bigint }
  | { readonly kind: "nonce"; readonly address: Uint8Array; readonly value: bigint }
  | { readonly kind: "code"; readonly address: Uint8Array; readonly code: Uint8Array }
  | {
      readonly kind: "storage";
      readonly address: Uint8Array;
      readonly slot: Uint8Array;
      /** 32 bytes. */
      readonly value: Uint8Array;
    };
