// A Merkle state manager that remembers which accounts and slots a block touched, so the block's
// state diff (for plain state, change sets and history) can be read off after execution without
// walking the trie.

import { MerkleStateManager, type MerkleStateManagerOpts } from "@ethereumjs/statemanager";
import type { Account, Address } from "@ethereumjs/util";
import { bytesToUnprefixedHex, copyBytes } from "../util/hex.ts";

export type TouchedSlot = { readonly address: Uint8Array; readonly slot: Uint8Array };

export class RecordingStateManager extends MerkleStateManager {
  readonly touchedAccounts = new Map<string, Uint8Array>();
  readonly touchedSlots = new Map<string, TouchedSlot>();
  /** Accounts whose whole storage was dropped (self-destruct, deletion, creation over storage). */
  readonly wipedAccounts = new Map<string, Uint8Array>();
  readonly newCode = new Map<string, Uint8Array>();

  constructor(
    opts: MerkleStateManagerOpts,
    private readonly hash: (data: Uint8Array) => Uint8Array,
  ) {
    super(opts);
  }

  private touch(address: Address): void {
    this.touchedAccounts.set(bytesToUnprefixedHex(address.bytes), address.bytes);
  }

  private wipe(address: Address): void {
    this.touch(address);
    this.wipedAccounts.set(bytesToUnprefixedHex(address.bytes), address.bytes);
  }

  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
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
    this.touchedSlots.set(bytesToUnprefixedHex(address.bytes) + bytesToUnprefixedHex(slot), {
      address: address.bytes,
      slot,
    });
    return super.putStorage(address, key, value);
  }

  override async clearStorage(address: Address): Promise<void> {
    this.wipe(address);
    return super.clearStorage(address);
  }

  override async putCode(address: Address, value: Uint8Array): Promise<void> {
    this.touch(address);
    if (value.length > 0)
      this.newCode.set(bytesToUnprefixedHex(this.hash(value)), copyBytes(value));
    return super.putCode(address, value);
  }

  resetRecording(): void {
    this.touchedAccounts.clear();
    this.touchedSlots.clear();
    this.wipedAccounts.clear();
    this.newCode.clear();
  }
}
