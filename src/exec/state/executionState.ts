// The state a block executes on, as the EVM library's state manager: the block's writes in a
// journaled flat overlay (blockOverlay.ts) over the archive head's state (headReads.ts), kept
// decoded from block to block (headCache.ts). No trie while transactions run: the state root is
// computed once, when asked (stateRoot.ts). The head moves only through moveToHead(): a sealed
// block (sealedAs) is folded into the cache once the archive holds it; any other move of the
// head (a revert, a reorg) empties the cache.
import type { AccountFields, StateManagerInterface } from "@ethereumjs/common";
import type { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { OriginalStorageCache } from "@ethereumjs/statemanager";
import { Account, type Address, KECCAK256_NULL, KECCAK256_RLP } from "@ethereumjs/util";
import type { AccountRecord } from "../../chain/types.ts";
import { FlashnodeError } from "../../util/errors.ts";
import { bytesToUnprefixedHex, equalBytes, hexToBytes, trimLeadingZeros } from "../../util/hex.ts";
import { type AccountValue, BlockOverlay } from "./blockOverlay.ts";
import { HeadCache, type HeadCacheLimits } from "./headCache.ts";
import type { HeadPosition, HeadReads } from "./headReads.ts";
import { type StateRoot, stateRootOf } from "./stateRoot.ts";

const EMPTY = new Uint8Array(0);
/**
 * What an account read here shows as its storage root when it has storage: the real root is
 * the trie's, computed at the seal. Only its emptiness is ever asked (EIP-7610).
 */
export const STORAGE_NOT_EMPTY = new Uint8Array(32).fill(0xff);

/** An operation this state has no meaning for (it sits on the archive's head, nowhere else). */
export class UnsupportedStateOperationError extends FlashnodeError {
  readonly code = "UNSUPPORTED_STATE_OPERATION";
}

function recordValue(record: AccountRecord | undefined): AccountValue | null {
  if (record === undefined) return null;
  return {
    nonce: record.nonce,
    balance: record.balance,
    codeHash: record.codeHash ?? KECCAK256_NULL,
  };
}

/** An account as execution reads it: its storage root says whether it has storage, when asked. */
class ExecAccount extends Account {
  constructor(
    v: AccountValue,
    private readonly state: ExecutionState,
    private readonly key: string,
  ) {
    super(v.nonce, v.balance, KECCAK256_RLP, v.codeHash);
  }

  override get storageRoot(): Uint8Array {
    return this.state.storageEmpty(this.key) ? KECCAK256_RLP : STORAGE_NOT_EMPTY;
  }

  // Writes of the root are the trie's business (at the seal): ignored here.
  override set storageRoot(_root: Uint8Array) {}
}

const same = (a: HeadPosition | undefined, b: HeadPosition | undefined) =>
  a === undefined || b === undefined
    ? a === b
    : a.number === b.number && equalBytes(a.hash, b.hash);

export class ExecutionState implements StateManagerInterface {
  readonly originalStorageCache: OriginalStorageCache;
  private readonly overlay = new BlockOverlay();
  /** Code deployed since the block began, by hash (content-addressed: never reverted). */
  private readonly blockCode = new Map<string, Uint8Array>();
  private readonly cache: HeadCache;
  /** The root of the head the block runs on. */
  private parentRoot: Uint8Array = KECCAK256_RLP;
  /** The root computed for the overlay at a version (a second ask of the same state is free). */
  private computed: { readonly version: number; readonly result: StateRoot } | undefined;
  /** The block the overlay became (collected for the archive), until the head moves. */
  private sealed: HeadPosition | undefined;

  constructor(
    private readonly head: HeadReads,
    private readonly trie: MerklePatriciaTrie,
    private readonly keccak: (data: Uint8Array) => Uint8Array,
    limits?: HeadCacheLimits,
  ) {
    this.cache = new HeadCache(limits);
    this.originalStorageCache = new OriginalStorageCache(this.getStorage.bind(this));
  }

  /**
   * Positions the state on the archive's head, with no write of its own: the sealed block's
   * writes are kept (folded into the cache) when that block is the head now; otherwise they
   * are dropped, and so is the cache if the head is not the one it holds.
   */
  moveToHead(): void {
    const at = this.head.position();
    const folded = this.sealed !== undefined && same(at, this.sealed);
    if (folded)
      this.cache.fold(
        this.overlay.entries(),
        this.blockCode,
        this.computedNow()?.storageRoots ?? new Map(),
      );
    else if (!same(at, this.cache.at)) this.cache.clear();
    const moved = !same(at, this.cache.at) || folded;
    this.cache.at = at;
    if (moved || at === undefined)
      this.parentRoot = at === undefined ? KECCAK256_RLP : this.head.stateRoot(at.number);
    this.sealed = undefined;
    this.overlay.clear();
    this.blockCode.clear();
    this.computed = undefined;
    this.originalStorageCache.clear();
  }

  /** The overlay is now block `at`'s state, handed to the archive (see moveToHead). */
  sealedAs(at: HeadPosition): void {
    this.sealed = at;
  }

  private computedNow(): StateRoot | undefined {
    return this.computed?.version === this.overlay.version ? this.computed.result : undefined;
  }

  /** The account as the block has it now (null: none), unmasked. */
  protected accountValue(
    key: string,
    address: Uint8Array,
  ): AccountValue | null | Promise<AccountValue | null> {
    const w = this.overlay.get(key);
    if (w !== undefined && w.account !== undefined) return w.account;
    const cached = this.cache.account(key);
    if (cached !== undefined) return cached;
    const read = this.head.account(address);
    return read instanceof Promise
      ? read.then((r) => this.cache.putAccount(key, recordValue(r)))
      : this.cache.putAccount(key, recordValue(read));
  }

  async getAccount(address: Address): Promise<Account | undefined> {
    const key = bytesToUnprefixedHex(address.bytes);
    let v = this.accountValue(key, address.bytes);
    if (v instanceof Promise) v = await v;
    return v === null ? undefined : new ExecAccount(v, this, key);
  }

  async putAccount(address: Address, account: Account | undefined): Promise<void> {
    const key = bytesToUnprefixedHex(address.bytes);
    if (account === undefined) return this.remove(key, address.bytes);
    this.overlay.putAccount(key, address.bytes, {
      nonce: account.nonce,
      balance: account.balance,
      codeHash: account.codeHash,
    });
  }

  async deleteAccount(address: Address): Promise<void> {
    this.remove(bytesToUnprefixedHex(address.bytes), address.bytes);
  }

  private remove(key: string, address: Uint8Array): void {
    this.overlay.putAccount(key, address, null);
    this.overlay.wipe(key, address);
  }

  async modifyAccountFields(address: Address, fields: AccountFields): Promise<void> {
    const account = (await this.getAccount(address)) ?? new Account();
    account.nonce = fields.nonce ?? account.nonce;
    account.balance = fields.balance ?? account.balance;
    account.codeHash = fields.codeHash ?? account.codeHash;
    await this.putAccount(address, account);
  }

  async putCode(address: Address, value: Uint8Array): Promise<void> {
    // A plain array, as an account decoded from the archive holds it (keccak may give a Buffer).
    const codeHash = new Uint8Array(this.keccak(value));
    this.blockCode.set(bytesToUnprefixedHex(codeHash), new Uint8Array(value));
    // As the library's state managers do it: the account made first if there is none.
    if ((await this.getAccount(address)) === undefined)
      await this.putAccount(address, new Account());
    await this.modifyAccountFields(address, { codeHash });
  }

  async getCode(address: Address): Promise<Uint8Array> {
    let v = this.accountValue(bytesToUnprefixedHex(address.bytes), address.bytes);
    if (v instanceof Promise) v = await v;
    if (v === null || equalBytes(v.codeHash, KECCAK256_NULL)) return EMPTY;
    const hash = bytesToUnprefixedHex(v.codeHash);
    const known = this.blockCode.get(hash) ?? this.cache.codeOf(hash);
    if (known !== undefined) return known;
    let code = this.head.code(v.codeHash, address.bytes);
    if (code instanceof Promise) code = await code;
    return code.length === 0 ? code : this.cache.putCode(hash, code);
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length;
  }

  async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    if (key.length !== 32) throw new Error("Storage key must be 32 bytes long");
    const a = bytesToUnprefixedHex(address.bytes);
    const slot = bytesToUnprefixedHex(key);
    const w = this.overlay.get(a);
    if (w !== undefined) {
      const written = w.slots?.get(slot);
      if (written !== undefined) return written;
      if (w.wiped) return EMPTY;
    }
    const cached = this.cache.slot(a, slot);
    if (cached !== undefined) return cached;
    let read = this.head.storage(address.bytes, key);
    if (read instanceof Promise) read = await read;
    return this.cache.putSlot(a, slot, read);
  }

  async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (key.length !== 32) throw new Error("Storage key must be 32 bytes long");
    if (value.length > 32) throw new Error("Storage value cannot be longer than 32 bytes");
    const a = bytesToUnprefixedHex(address.bytes);
    let account = this.accountValue(a, address.bytes);
    if (account instanceof Promise) account = await account;
    if (account === null) throw new Error("putStorage() called on non-existing account");
    this.overlay.putSlot(
      a,
      address.bytes,
      bytesToUnprefixedHex(key),
      // A plain copy (a Buffer's slice would be a view, and a Buffer besides).
      new Uint8Array(trimLeadingZeros(value)),
    );
  }

  async clearStorage(address: Address): Promise<void> {
    const account = (await this.getAccount(address)) ?? new Account();
    this.overlay.wipe(bytesToUnprefixedHex(address.bytes), address.bytes);
    // The library's managers write the account back (making it if there was none).
    await this.putAccount(address, account);
  }

  /**
   * Whether the account has no storage now, for EIP-7610: its writes in this block, else the
   * archive. (A block that zeroes every slot the archive holds is not noticed: the account still
   * shows storage until it is sealed.)
   */
  storageEmpty(key: string): boolean {
    const w = this.overlay.get(key);
    if (w?.slots !== undefined) for (const v of w.slots.values()) if (v.length > 0) return false;
    if (w?.wiped === true) return true;
    return !this.head.hasStorage(hexToBytes(key));
  }

  async checkpoint(): Promise<void> {
    this.overlay.checkpoint();
  }

  async commit(): Promise<void> {
    this.overlay.commit();
    if (this.overlay.depth === 0) this.originalStorageCache.clear();
  }

  async revert(): Promise<void> {
    this.overlay.revert();
    if (this.overlay.depth === 0) this.originalStorageCache.clear();
  }

  /** Checkpoints open now: the block builder's, a transaction's, one per call frame. */
  get checkpointDepth(): number {
    return this.overlay.depth;
  }

  /**
   * Reverts the checkpoints open above `depth`. A read that throws inside a call frame (a forked
   * chain's upstream failing) leaves that frame's open: the EVM library reverts only the
   * transaction's own.
   */
  async revertTo(depth: number): Promise<void> {
    while (this.overlay.depth > depth) await this.revert();
  }

  /** The head's root with the block's writes so far: the trie is written here, and only here. */
  async getStateRoot(): Promise<Uint8Array> {
    const known = this.computedNow();
    if (known !== undefined) return known.root;
    const version = this.overlay.version;
    const result = await stateRootOf(this.trie, {
      parentRoot: this.parentRoot,
      writes: this.overlay.entries(),
      current: (key, w) => this.accountValue(key, w.address),
      knownStorageRoot: (key) => this.cache.storageRoot(key),
      code: this.blockCode,
    });
    this.computed = { version, result };
    return result.root;
  }

  /** The state sits on the archive's head: moveToHead() moves it, no root can be set. */
  async setStateRoot(_stateRoot: Uint8Array): Promise<void> {
    throw new UnsupportedStateOperationError(
      "the executor's state follows the archive's head: it cannot be set to a root",
    );
  }

  hasStateRoot(root: Uint8Array): Promise<boolean> {
    return this.trie.checkRoot(root);
  }

  getAppliedKey(address: Uint8Array): Uint8Array {
    return this.keccak(address);
  }

  /** Drops what was read of the head (never the block's writes). */
  clearCaches(): void {
    const at = this.cache.at;
    this.cache.clear();
    this.cache.at = at;
  }

  shallowCopy(): StateManagerInterface {
    throw new UnsupportedStateOperationError("the executor's state has no copies");
  }
}
