// A Merkle state manager that remembers which accounts and slots a block touched, so the block's
// state diff (for plain state, change sets and history) can be read off after execution without
// walking the trie.

import { MerkleStateManager, type MerkleStateManagerOpts } from "@ethereumjs/statemanager";
import { Account, type Address, equalsBytes, KECCAK256_NULL } from "@ethereumjs/util";
import { bytesToUnprefixedHex, copyBytes } from "../util/hex.ts";

export type TouchedSlot = { readonly address: Uint8Array; readonly slot: Uint8Array };

export type Touches = {
  readonly accounts: Map<string, Uint8Array>;
  readonly slots: Map<string, TouchedSlot>;
  readonly wiped: Map<string, Uint8Array>;
  readonly code: Map<string, Uint8Array>;
};

function emptyTouches(): Touches {
  return { accounts: new Map(), slots: new Map(), wiped: new Map(), code: new Map() };
}

export class RecordingStateManager extends MerkleStateManager {
  readonly touchedAccounts = new Map<string, Uint8Array>();
  readonly touchedSlots = new Map<string, TouchedSlot>();
  /** Accounts whose whole storage was dropped (self-destruct, deletion, creation over storage). */
  readonly wipedAccounts = new Map<string, Uint8Array>();
  readonly newCode = new Map<string, Uint8Array>();
  /** What changed since the last drainRecent(): a flashblock's worth. */
  private recent = emptyTouches();
  /** An impersonated contract sending a transaction: its code hidden until it is written. */
  private disguised: string | undefined;

  constructor(
    opts: MerkleStateManagerOpts,
    private readonly hash: (data: Uint8Array) => Uint8Array,
  ) {
    super(opts);
  }

  private touch(address: Address): void {
    const hex = bytesToUnprefixedHex(address.bytes);
    this.touchedAccounts.set(hex, address.bytes);
    this.recent.accounts.set(hex, address.bytes);
  }

  private wipe(address: Address): void {
    this.touch(address);
    const hex = bytesToUnprefixedHex(address.bytes);
    this.wipedAccounts.set(hex, address.bytes);
    this.recent.wiped.set(hex, address.bytes);
  }

  /**
   * The EVM library refuses a sender with code (EIP-3607); anvil lets an impersonated contract
   * send. Until the sender's account is next written (the transaction's nonce and fee, before it
   * runs), reads of it see no code; that write keeps the real code hash.
   */
  disguise(address: Uint8Array | undefined): void {
    this.disguised = address === undefined ? undefined : bytesToUnprefixedHex(address);
  }

  override async getAccount(address: Address): Promise<Account | undefined> {
    const account = await super.getAccount(address);
    if (this.disguised === undefined || account === undefined) return account;
    if (this.disguised !== bytesToUnprefixedHex(address.bytes)) return account;
    return new Account(account.nonce, account.balance, account.storageRoot, KECCAK256_NULL);
  }

  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    if (this.disguised !== undefined && this.disguised === bytesToUnprefixedHex(address.bytes)) {
      this.disguised = undefined;
      const real = await super.getAccount(address);
      if (
        account !== undefined &&
        real !== undefined &&
        equalsBytes(account.codeHash, KECCAK256_NULL)
      )
        account.codeHash = real.codeHash;
    }
    this.touch(address);
    if (account === undefined) this.wipe(address);
    return super.putAccount(address, account);
  }

  override async deleteAccount(address: Address): Promise<void> {
    this.wipe(address);
    return super.deleteAccount(address);
  }

  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    this.touch(address);
    const slot = copyBytes(key);
    const id = bytesToUnprefixedHex(address.bytes) + bytesToUnprefixedHex(slot);
    this.touchedSlots.set(id, { address: address.bytes, slot });
    this.recent.slots.set(id, { address: address.bytes, slot });
    return super.putStorage(address, key, value);
  }

  override async clearStorage(address: Address): Promise<void> {
    this.wipe(address);
    return super.clearStorage(address);
  }

  override async putCode(address: Address, value: Uint8Array): Promise<void> {
    this.touch(address);
    if (value.length > 0) {
      const hash = bytesToUnprefixedHex(this.hash(value));
      this.newCode.set(hash, copyBytes(value));
      this.recent.code.set(hash, copyBytes(value));
    }
    return super.putCode(address, value);
  }

  resetRecording(): void {
    this.touchedAccounts.clear();
    this.touchedSlots.clear();
    this.wipedAccounts.clear();
    this.newCode.clear();
    this.recent = emptyTouches();
  }

  /** What was touched since the previous call. */
  drainRecent(): Touches {
    const out = this.recent;
    this.recent = emptyTouches();
    return out;
  }
}
