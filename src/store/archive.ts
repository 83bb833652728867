// What the archive is to the rest of the node: its read interfaces (blocks and receipts, state at
// a block) and the whole store with its writes. The LMDB implementation is store/chainStore.ts;
// everything above the store depends on these types only.
import type { Forkchoice } from "../chain/forkchoice.ts";
import type {
  AccountChange,
  AccountRecord,
  BlockReceipts,
  BlockWrite,
  StorageChange,
} from "../chain/types.ts";
import type { StoredForkBase } from "./forkBaseCodec.ts";
import type { KvEnv } from "./lmdb.ts";
import type { ScannedAccount } from "./stateScan.ts";

/** A recorded flashblock of an unsealed block (table 16). */
export type FlashblockRecord = {
  readonly index: number;
  readonly timestamp: bigint;
  readonly transactions: Uint8Array[];
  /** Dev state changes applied after the transactions (src/exec/devWrites.ts). */
  readonly ops: Uint8Array[];
};

/** The next block's flashblock 0, recorded with the seal of the block before it. */
export type NextOpening = {
  readonly timestamp: bigint;
  /** Its deposits (an OP-stack block's opening ones; none on Ethereum). */
  readonly transactions: readonly Uint8Array[];
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
  /**
   * Whether this chain ever wrote the account (it has a row or a history entry): on a forked
   * chain, an account it never wrote is the upstream's at the fork block.
   */
  accountKnown(address: Uint8Array): boolean;
  /** Whether this chain ever wrote the slot (it has a row). */
  slotKnown(address: Uint8Array, slot: Uint8Array): boolean;
};

export type ChainStore = ChainReader &
  StateReader & {
    readonly env: KvEnv;
    /** Every account of the current state with its storage (a state dump: stateScan.ts). */
    currentState(): ScannedAccount[];
    /** Current-state storage slots of an account (for storage wipes). */
    currentStorageSlots(address: Uint8Array): Uint8Array[];
    currentAccount(address: Uint8Array): AccountRecord | undefined;
    currentStorage(address: Uint8Array, slot: Uint8Array): Uint8Array;
    trieNode(key: Uint8Array): Uint8Array | undefined;
    /** A followed block's own-trie root (BlockWrite.localStateRoot), if it has one. */
    localStateRoot(number: number, hash: Uint8Array): Uint8Array | undefined;
    /** A dev block's state writes, each after that many of its transactions (BlockWrite). */
    devWrites(number: number): Array<readonly [number, Uint8Array]>;
    /** What block `number` changed (its change sets), each value before and after the block. */
    blockChanges(number: number): { accounts: AccountChange[]; storage: StorageChange[] };
    /**
     * Commits a block in one write; `next` (a sequencer's seal): the next block's flashblock 0
     * recorded in the same write, so a sealed block costs one durable write, not two.
     */
    writeBlock(block: BlockWrite, next?: NextOpening): void;
    /**
     * As writeBlock, answered once committed, with the flush to disk after it (a dev chain's
     * sequencer, KvEnv.writeAtomicallySoon): a process kill loses nothing, a power loss at most
     * the last blocks, never the archive's consistency.
     */
    writeBlockSoon(block: BlockWrite, next?: NextOpening): Promise<void>;
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
