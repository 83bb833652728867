// The block builder's state on a forked chain (dev --fork-url, follow): the chain's own trie holds
// only what the chain wrote since the fork block F; every account, slot and code it never wrote
// is read from the upstream at F (UpstreamState, fetched once and kept in the datadir). The
// trie's root is therefore the root of the chain's own writes, not of the whole state: what
// anvil's forks do too.
//
// "Written" is tracked per checkpoint (a reverted transaction's writes are forgotten with it), and
// below that by the archive: an account or slot the archive has a row or history of was written.
import { CODEHASH_PREFIX, type MerkleStateManagerOpts } from "@ethereumjs/statemanager";
import {
  Account,
  type Address,
  concatBytes,
  KECCAK256_NULL,
  KECCAK256_RLP,
} from "@ethereumjs/util";
import type { AccountRecord } from "../chain/types.ts";
import type { LocalStateKnowledge, UpstreamState } from "../services/upstreamState.ts";
import { bytesToUnprefixedHex, equalBytes } from "../util/hex.ts";
import { RecordingStateManager } from "./recordingStateManager.ts";

const EMPTY = new Uint8Array(0);

/** What one checkpoint level wrote. */
type Written = { accounts: Set<string>; slots: Set<string>; wiped: Set<string> };

function emptyWritten(): Written {
  return { accounts: new Set(), slots: new Set(), wiped: new Set() };
}

export class ForkedStateManager extends RecordingStateManager {
  /** Index 0: written and committed (flushed); above it, one level per open checkpoint. */
  private levels: Written[] = [emptyWritten()];
  /** Accounts the archive says were written (only grows until reset: writes are never undone). */
  private readonly archiveAccounts = new Set<string>();
  /**
   * Whether the chain's own trie holds the account, for accounts the archive has no row of: an
   * upstream contract whose slots the chain wrote is there (with its own storage root) although
   * its fields never changed. Asked once per account until the state moves (resetWritten).
   */
  private readonly inTrie = new Map<string, boolean>();
  /** The upstream's accounts, as read (immutable: F never changes). */
  private readonly upstreamAccounts = new Map<string, AccountRecord | undefined>();

  constructor(
    opts: MerkleStateManagerOpts,
    private readonly keccak: (data: Uint8Array) => Uint8Array,
    private readonly upstream: UpstreamState,
    private readonly archive: LocalStateKnowledge,
  ) {
    super(opts, keccak);
  }

  /** Forgets what was written in memory (the state went back to the archive's head). */
  resetWritten(): void {
    this.levels = [emptyWritten()];
    this.archiveAccounts.clear();
    this.inTrie.clear();
  }

  private top(): Written {
    return this.levels[this.levels.length - 1]!;
  }

  private accountWritten(address: Address): boolean {
    const key = bytesToUnprefixedHex(address.bytes);
    for (const level of this.levels) if (level.accounts.has(key)) return true;
    if (this.archiveAccounts.has(key)) return true;
    if (!this.archive.accountKnown(address.bytes)) return false;
    this.archiveAccounts.add(key);
    return true;
  }

  private slotWritten(address: Address, slot: Uint8Array): boolean {
    const a = bytesToUnprefixedHex(address.bytes);
    const key = a + bytesToUnprefixedHex(slot);
    for (const level of this.levels) if (level.slots.has(key) || level.wiped.has(a)) return true;
    return this.archive.slotKnown(address.bytes, slot);
  }

  private async upstreamAccount(address: Address): Promise<AccountRecord | undefined> {
    const key = bytesToUnprefixedHex(address.bytes);
    if (this.upstreamAccounts.has(key)) return this.upstreamAccounts.get(key);
    const peeked = this.upstream.peekAccount(address.bytes);
    const record =
      peeked === undefined ? await this.upstream.account(address.bytes) : (peeked ?? undefined);
    this.upstreamAccounts.set(key, record);
    return record;
  }

  /** Whether the chain's own trie (at the current root) has an entry for the account. */
  private async ownTrieHas(address: Address): Promise<boolean> {
    const key = bytesToUnprefixedHex(address.bytes);
    let has = this.inTrie.get(key);
    if (has === undefined) {
      // The trie itself, not getAccount: that would cache the miss as a deleted account.
      has = (await this._trie.get(address.bytes)) !== null;
      this.inTrie.set(key, has);
    }
    return has;
  }

  protected override async storedAccount(address: Address): Promise<Account | undefined> {
    if (this.accountWritten(address) || (await this.ownTrieHas(address)))
      return super.storedAccount(address);
    const record = await this.upstreamAccount(address);
    if (record === undefined) return undefined;
    // Its storage root is the chain's own (empty until it writes a slot): the upstream's slots
    // are read one by one below, never through a trie.
    return new Account(
      record.nonce,
      record.balance,
      KECCAK256_RLP,
      record.codeHash ?? KECCAK256_NULL,
    );
  }

  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    this.top().accounts.add(bytesToUnprefixedHex(address.bytes));
    return super.putAccount(address, account);
  }

  override async deleteAccount(address: Address): Promise<void> {
    const top = this.top();
    const key = bytesToUnprefixedHex(address.bytes);
    top.accounts.add(key);
    top.wiped.add(key);
    return super.deleteAccount(address);
  }

  override async clearStorage(address: Address): Promise<void> {
    this.top().wiped.add(bytesToUnprefixedHex(address.bytes));
    return super.clearStorage(address);
  }

  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    this.top().slots.add(bytesToUnprefixedHex(address.bytes) + bytesToUnprefixedHex(key));
    return super.putStorage(address, key, value);
  }

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    if (this.slotWritten(address, key)) return super.getStorage(address, key);
    // No code at F, no storage at F: an account the chain created never asks the upstream.
    const record = await this.upstreamAccount(address);
    if (record?.codeHash === undefined) return EMPTY;
    const peeked = this.upstream.peekStorage(address.bytes, key);
    return peeked ?? (await this.upstream.storage(address.bytes, key));
  }

  override async getCode(address: Address): Promise<Uint8Array> {
    const cached = this._caches?.code?.get(address);
    if (cached !== undefined) return cached.code ?? EMPTY;
    const account = await this.getAccount(address);
    if (account === undefined || !account.isContract()) return EMPTY;
    // Code the chain deployed: where the state manager flushed it (its key prefixed, as
    // MerkleStateManager writes it).
    const key = this._prefixCodeHashes
      ? concatBytes(CODEHASH_PREFIX, account.codeHash)
      : account.codeHash;
    const local = await this._getCodeDB().get(key);
    if (local !== undefined) return local;
    // Code the chain did not deploy: the upstream's (never put in the code cache, whose entries
    // are written back to the account at flush).
    const byHash = this.upstream.codeByHash(account.codeHash);
    if (byHash !== undefined) return byHash;
    const code = await this.upstream.code(address.bytes);
    return equalBytes(this.keccak(code), account.codeHash) ? code : EMPTY;
  }

  override async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length;
  }

  override async checkpoint(): Promise<void> {
    this.levels.push(emptyWritten());
    return super.checkpoint();
  }

  override async commit(): Promise<void> {
    const top = this.levels.length > 1 ? this.levels.pop()! : emptyWritten();
    const below = this.top();
    for (const k of top.accounts) below.accounts.add(k);
    for (const k of top.slots) below.slots.add(k);
    for (const k of top.wiped) below.wiped.add(k);
    // super.commit may flush into the trie at depth 0: those writes count at the level below.
    return super.commit();
  }

  override async revert(): Promise<void> {
    if (this.levels.length > 1) this.levels.pop();
    return super.revert();
  }

  override async setStateRoot(stateRoot: Uint8Array, clearCache?: boolean): Promise<void> {
    this.resetWritten();
    return super.setStateRoot(stateRoot, clearCache);
  }
}
