// The executor's state over the archive: the EVM and its state manager positioned on the head
// (a forked chain's reading through to its upstream), the block being built's header fields and
// touches, the state diffs of flashblocks and blocks, and the archive write a block becomes.
// BlockExecutor (blockExecutor.ts) adds what turns blocks into writes: genesis, a fork's base,
// imported blocks executed and verified.
import {
  type Block,
  type BlockHeader,
  createBlock,
  createBlockHeaderFromRLP,
  type HeaderData,
} from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { type Input, RLP } from "@ethereumjs/rlp";
import type { TypedTransaction } from "@ethereumjs/tx";
import { type Account, Address, KECCAK256_NULL } from "@ethereumjs/util";
import { type BlockBuilder, buildBlock, type VM } from "@ethereumjs/vm";
import type { ChainSpec } from "../chain/genesis.ts";
import { encodingOf, hashOf } from "../chain/txFacts.ts";
import type {
  AccountChange,
  AccountRecord,
  BlockWrite,
  ReceiptRecord,
  StateWrite,
  StorageChange,
} from "../chain/types.ts";
import type { StateDiff } from "../pending/types.ts";
import type { UpstreamBlockHashes, UpstreamState } from "../services/upstreamState.ts";
import type { ChainStore } from "../store/archive.ts";
import { keccak256 } from "../util/crypto.ts";
import { bytesToUnprefixedHex, equalBytes, trimLeadingZeros } from "../util/hex.ts";
import { decodeRawTransaction } from "./decodeTransaction.ts";
import { applyStateWrite } from "./devWrites.ts";
import { fetchSealReads, missingSealReads, type SealReads } from "./forkSealReads.ts";
import { createNodeVm } from "./nodeVm.ts";
import { OpExecution } from "./op/opExecution.ts";
import { RecordingStateManager, type Touches } from "./recordingStateManager.ts";
import { forkedHeadReads, localHeadReads } from "./state/headReads.ts";
import { BufferedTrieDb } from "./trieDb.ts";
import { builderHeader, resetJournal } from "./vmInternals.ts";

export function toRecord(account: Account | undefined): AccountRecord | undefined {
  if (account === undefined) return undefined;
  return {
    nonce: account.nonce,
    balance: account.balance,
    codeHash: equalBytes(account.codeHash, KECCAK256_NULL) ? undefined : account.codeHash,
  };
}

export function sameAccount(a: AccountRecord | undefined, b: AccountRecord | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.nonce !== b.nonce || a.balance !== b.balance) return false;
  if (a.codeHash === undefined || b.codeHash === undefined) return a.codeHash === b.codeHash;
  return equalBytes(a.codeHash, b.codeHash);
}

/** A write of a fork's base state (BlockExecutor.forkBase). */
export type ForkBaseWrite = {
  readonly address: Uint8Array;
  readonly balance?: bigint;
  readonly code?: Uint8Array;
};

/** A forked chain's upstream: state at its base block F, and the hashes of F's ancestors. */
export type ForkedExecution = {
  readonly upstream: UpstreamState;
  readonly hashes: UpstreamBlockHashes;
};

/** What an executor is made of (ExecutorCore's constructor, in order). */
export type ExecutorParts = [
  spec: ChainSpec,
  store: ChainStore,
  trieDb: BufferedTrieDb,
  state: RecordingStateManager,
  vm: VM,
  op: OpExecution | undefined,
  fork: ForkedExecution | undefined,
];

export class ExecutorCore {
  protected constructor(
    readonly spec: ChainSpec,
    protected readonly store: ChainStore,
    protected readonly trieDb: BufferedTrieDb,
    protected readonly state: RecordingStateManager,
    protected readonly vm: VM,
    /** OP-stack chains: deposits, the L1 fee and the fee vaults on this VM. */
    readonly op: OpExecution | undefined,
    /** A forked chain: what it never wrote is its upstream's at F. */
    protected readonly fork: ForkedExecution | undefined,
  ) {}

  /** An executor's parts, positioned on the archive's head state (empty for a new archive). */
  protected static async parts(
    spec: ChainSpec,
    store: ChainStore,
    fork: ForkedExecution | undefined,
  ): Promise<ExecutorParts> {
    const trieDb = new BufferedTrieDb(store);
    const trie = new MerklePatriciaTrie({
      db: trieDb,
      useKeyHashing: true,
      valueEncoding: "view",
      common: spec.common,
    });
    const rootAt = (number: number) => ExecutorCore.stateRootAt(spec, store, number);
    const head =
      fork === undefined
        ? localHeadReads(store, rootAt)
        : forkedHeadReads(store, rootAt, fork.upstream, keccak256);
    const state = new RecordingStateManager(head, trie, keccak256);
    state.moveToHead();
    const vm = await createNodeVm({
      common: spec.common.copy(),
      stateManager: state,
      // Below a fork's base block F, the upstream's chain (BLOCKHASH, EIP-2935).
      blockHash: async (n) => store.canonicalHash(n) ?? (await fork?.hashes.canonicalHash(n)),
      missing: "throw",
      setHardfork: true,
    });
    const op = spec.op === undefined ? undefined : OpExecution.install(vm, spec.op);
    return [spec, store, trieDb, state, vm, op, fork];
  }

  /**
   * The state root this chain's trie has after block `number`: the header's, except at a fork's
   * base block F, whose header carries the upstream's root (the chain's own is recorded apart).
   */
  static stateRootAt(spec: ChainSpec, store: ChainStore, number: number): Uint8Array {
    const base = store.forkBase();
    if (base !== undefined && base.number === number) return base.stateRoot;
    const hash = store.canonicalHash(number);
    const local = hash === undefined ? undefined : store.localStateRoot(number, hash);
    return local ?? ExecutorCore.storedHeader(spec, store, number).stateRoot;
  }

  static storedHeader(spec: ChainSpec, store: ChainStore, number: number): BlockHeader {
    const hash = store.canonicalHash(number);
    const rlp = hash === undefined ? undefined : store.headerRlp(number, hash);
    if (hash === undefined || rlp === undefined)
      throw new Error(`archive has no header for block ${number}`);
    return createBlockHeaderFromRLP(rlp, { common: spec.common, setHardfork: true });
  }

  /** The archive head as a block the builder can extend (header only: all it reads). */
  headBlock(): Block {
    const head = this.store.headNumber();
    if (head === undefined) throw new Error("archive has no genesis");
    const header = ExecutorCore.storedHeader(this.spec, this.store, head);
    return createBlock(
      { header: header.toJSON() },
      { common: header.common, skipConsensusFormatValidation: true },
    );
  }

  /**
   * A block begins on the archive's head: the state is moved there (the block sealed before,
   * once written, kept as the head's), the recorder starts afresh.
   */
  protected beginBlock(): void {
    this.trieDb.discardPending();
    this.state.moveToHead();
    this.state.resetRecording();
  }

  /** Starts building the next block on the head; the recorder starts afresh. */
  async openBuilder(headerData: HeaderData): Promise<BlockBuilder> {
    const parentBlock = this.headBlock();
    this.vm.common.setHardforkBy({
      blockNumber: parentBlock.header.number + 1n,
      timestamp: BigInt(headerData.timestamp as bigint),
    });
    this.beginBlock();
    const builder = await buildBlock(this.vm, {
      parentBlock,
      headerData,
      blockOpts: { putBlockIntoBlockchain: false },
    });
    this.op?.beginBlock(
      BigInt(headerData.timestamp as bigint),
      builderHeader(builder).baseFeePerGas,
    );
    return builder;
  }

  /** The account as the block being built has it now (for pool validation). */
  async currentAccount(address: Uint8Array): Promise<AccountRecord | undefined> {
    return toRecord(await this.state.getAccount(new Address(address)));
  }

  /** Code and a storage word as the block being built has them (anvil_loadState). */
  currentCode = (address: Uint8Array) => this.state.getCode(new Address(address));
  currentStorage = (address: Uint8Array, slot: Uint8Array) =>
    this.state.getStorage(new Address(address), slot);

  /** The account as the newest sealed block left it (`latest`); a fork's unwritten: upstream's. */
  async sealedAccount(address: Uint8Array): Promise<AccountRecord | undefined> {
    const local = this.store.currentAccount(address);
    if (local !== undefined || this.fork === undefined || this.store.accountKnown(address))
      return local;
    return this.fork.upstream.account(address);
  }

  /** A slot as the newest sealed block left it; a fork's unwritten: the upstream's. */
  private async sealedStorage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    if (this.fork === undefined || this.store.slotKnown(address, slot))
      return this.store.currentStorage(address, slot);
    const account = await this.fork.upstream.account(address);
    return account?.codeHash === undefined
      ? new Uint8Array(0)
      : this.fork.upstream.storage(address, slot);
  }

  /**
   * A forked chain: what sealing the block being built reads of its upstream and is not fetched
   * yet (forkSealReads.ts); undefined when nothing is missing.
   */
  sealReadsMissing(): SealReads | undefined {
    const up = this.fork?.upstream;
    if (up === undefined) return undefined;
    const { touchedAccounts: accounts, touchedSlots: slots } = this.state;
    return missingSealReads(up, this.store, { accounts: accounts.values(), slots: slots.values() });
  }

  /** Fetches what sealing will read of the upstream (sealReadsMissing); rejects if it cannot. */
  async fetchSealReads(): Promise<void> {
    const up = this.fork?.upstream;
    if (up !== undefined) await fetchSealReads(up, () => this.sealReadsMissing());
  }

  /**
   * A forked chain: fetches, in one upstream batch, the state a raw transaction names (its
   * sender, its recipient, its access list). Best effort: anything it cannot fetch now is
   * fetched, or refused, when the transaction runs.
   */
  async prefetchFor(raw: Uint8Array, common: Common): Promise<void> {
    if (this.fork === undefined) return;
    let accounts: Uint8Array[];
    let slots: [Uint8Array, Uint8Array][];
    try {
      const tx = decodeRawTransaction(raw, common);
      accounts = [tx.getSenderAddress().bytes, ...(tx.to === undefined ? [] : [tx.to.bytes])];
      slots = [];
      for (const item of accessListOf(tx)) {
        accounts.push(item.address);
        for (const key of item.storageKeys) slots.push([item.address, key]);
      }
    } catch {
      return; // refused with its reason once it reaches the pool
    }
    await this.fork.upstream.prefetch(accounts, slots).catch(() => undefined);
  }

  /** A dev method's write into the block being built (src/exec/devWrites.ts). */
  async applyStateWrite(w: StateWrite): Promise<void> {
    await applyStateWrite(this.state, w);
    // It may have written the L1 fee parameters (anvil_setStorageAt on L1Block).
    this.op?.forgetFeeParams();
  }

  /**
   * Back on the archive head's state, forgetting the block being built (its builder reverted
   * first): after evm_revert has unwound the archive, or to reopen a block at another time.
   */
  async resetToHead(): Promise<void> {
    if (this.store.headNumber() === undefined) throw new Error("archive has no genesis");
    this.trieDb.discardPending();
    this.state.moveToHead();
  }

  /**
   * The block being built given up after a step on it failed midway (its builder may hold
   * checkpoints a throw left open): every checkpoint unwound, the state back on the head.
   */
  async abandonBuild(): Promise<void> {
    await this.state.revertTo(0);
    resetJournal(this.vm);
    await this.resetToHead();
  }

  /** The state's open checkpoints (what a failed transaction must leave, see undoFailed). */
  get stateDepth(): number {
    return this.state.checkpointDepth;
  }

  /** After a transaction threw: the checkpoints it left open reverted, back to `depth`. */
  undoFailed(depth: number): Promise<void> {
    return this.state.revertTo(depth);
  }

  /**
   * The sender's code is hidden from the next transaction's EIP-3607 check (an impersonated
   * contract sends); undefined ends it.
   */
  disguise(address: Uint8Array | undefined): void {
    this.state.disguise(address);
  }

  /** Values of everything touched since the previous call (one flashblock's state diff). */
  drainDiff(): Promise<StateDiff> {
    return this.diffOf(this.state.drainRecent());
  }

  /** What the block being built changed over the head, as it is now (a state dump's part). */
  pendingChanges(): Promise<StateDiff> {
    const s = this.state;
    return this.diffOf({
      accounts: s.touchedAccounts,
      slots: s.touchedSlots,
      wiped: s.wipedAccounts,
      code: s.newCode,
    });
  }

  private async diffOf(t: Touches): Promise<StateDiff> {
    const accounts: [Uint8Array, AccountRecord | undefined][] = [];
    for (const address of t.accounts.values()) {
      accounts.push([address, toRecord(await this.state.getAccount(new Address(address)))]);
    }
    const storage: [Uint8Array, Uint8Array, Uint8Array][] = [];
    for (const { address, slot } of t.slots.values()) {
      const addr = new Address(address);
      const exists = (await this.state.getAccount(addr)) !== undefined;
      storage.push([
        address,
        slot,
        exists ? trimLeadingZeros(await this.state.getStorage(addr, slot)) : new Uint8Array(0),
      ]);
    }
    return {
      accounts,
      storage,
      wiped: [...t.wiped.values()],
      code: [...t.code].map(([hash, code]) => [Buffer.from(hash, "hex"), code] as const),
    };
  }

  /** The block's write: its state diff read off the recorder, with the given receipts. */
  async collectWrite(block: Block, receipts: readonly ReceiptRecord[]): Promise<BlockWrite> {
    const accountChanges: AccountChange[] = [];
    const storageChanges: StorageChange[] = [];
    const slots = new Map(this.state.touchedSlots);
    for (const [hex, address] of this.state.wipedAccounts) {
      for (const slot of this.store.currentStorageSlots(address)) {
        slots.set(hex + bytesToUnprefixedHex(slot), { address, slot });
      }
    }
    for (const address of this.state.touchedAccounts.values()) {
      const before = await this.sealedAccount(address);
      const after = toRecord(await this.state.getAccount(new Address(address)));
      if (!sameAccount(before, after)) accountChanges.push({ address, before, after });
    }
    for (const { address, slot } of slots.values()) {
      const before = await this.sealedStorage(address, slot);
      const addr = new Address(address);
      const exists = (await this.state.getAccount(addr)) !== undefined;
      const after = exists
        ? trimLeadingZeros(await this.state.getStorage(addr, slot))
        : new Uint8Array(0);
      if (!equalBytes(before, after)) storageChanges.push({ address, slot, before, after });
    }
    const number = Number(block.header.number);
    const hash = block.hash();
    // Once the archive holds it, the next block starts from this state (ExecutionState).
    this.state.sealedAs({ number, hash });
    return {
      number,
      hash,
      headerRlp: block.header.serialize(),
      bodyRlp: bodyRlp(block),
      timestamp: block.header.timestamp,
      transactionHashes: block.transactions.map((tx) => hashOf(tx)),
      receipts,
      accountChanges,
      storageChanges,
      code: new Map(this.state.newCode),
      trieNodes: this.trieDb.takePending(),
    };
  }
}

/**
 * Block body as stored: the block RLP's list without its header (Block.raw()'s, with each typed
 * transaction's encoding as it was decoded rather than serialized again).
 */
export function bodyRlp(block: Block): Uint8Array {
  const txs = block.transactions.map((tx) => (tx.type === 0 ? tx.raw() : encodingOf(tx)));
  const uncles = block.uncleHeaders.map((h) => h.raw());
  const withdrawals = block.withdrawals?.map((w) => w.raw());
  return RLP.encode(
    (withdrawals === undefined ? [txs, uncles] : [txs, uncles, withdrawals]) as Input,
  );
}

/** The access list a typed transaction carries (none for a legacy one). */
function accessListOf(
  tx: TypedTransaction,
): { readonly address: Uint8Array; readonly storageKeys: Uint8Array[] }[] {
  const list = (tx as { accessList?: readonly (readonly [Uint8Array, Uint8Array[]])[] }).accessList;
  return (list ?? []).map(([address, storageKeys]) => ({ address, storageKeys }));
}
