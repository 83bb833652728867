// The executor's state (state/executionState.ts) remembering which accounts and slots a block
// touched, so the block's state diff (for plain state, change sets and history) and each
// flashblock's can be read off after execution.

import type { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { type Account, Address } from "@ethereumjs/util";
import { bytesToUnprefixedHex, copyBytes } from "../util/hex.ts";
import { SenderCodeMask } from "./senderCodeMask.ts";
import { ExecutionState } from "./state/executionState.ts";
import type { HeadCacheLimits } from "./state/headCache.ts";
import type { HeadReads } from "./state/headReads.ts";

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

export class RecordingStateManager extends ExecutionState {
  readonly touchedAccounts = new Map<string, Uint8Array>();
  readonly touchedSlots = new Map<string, TouchedSlot>();
  /** Accounts whose whole storage was dropped (self-destruct, deletion, creation over storage). */
  readonly wipedAccounts = new Map<string, Uint8Array>();
  readonly newCode = new Map<string, Uint8Array>();
  /** What changed since the last drainRecent(): a flashblock's worth. */
  private recent = emptyTouches();
  /** An impersonated contract sending a transaction: its code hidden from EIP-3607's check. */
  private readonly mask = new SenderCodeMask();

  constructor(
    head: HeadReads,
    trie: MerklePatriciaTrie,
    private readonly hash: (data: Uint8Array) => Uint8Array,
    limits?: HeadCacheLimits,
  ) {
    super(head, trie, hash, limits);
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

  /** Hides `address`'s code from the next transaction's EIP-3607 check (senderCodeMask.ts). */
  disguise(address: Uint8Array | undefined): void {
    this.mask.set(address === undefined ? undefined : new Address(address));
  }

  override async getAccount(address: Address): Promise<Account | undefined> {
    return this.mask.view(address, await this.storedAccount(address));
  }

  /** The account as the state holds it. */
  private storedAccount(address: Address): Promise<Account | undefined> {
    return super.getAccount(address);
  }

  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    if (this.mask.covers(address))
      this.mask.beforeWrite(account, await this.storedAccount(address));
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
