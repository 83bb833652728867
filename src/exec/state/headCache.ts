// The head's state as execution has read it, decoded, kept from block to block: a sealed block's
// writes are folded in once the archive holds it, so the next block starts warm. It belongs to
// one head (`at`): whoever moves the head elsewhere (a revert, a reorg) empties it. Bounded: the
// oldest entries go first (an evicted entry is read again from the archive, a few µs).
import type { AccountValue, AddressWrites } from "./blockOverlay.ts";
import type { HeadPosition } from "./headReads.ts";

/** Entries kept: accounts (and their storage roots), slots, and code bytes. */
export type HeadCacheLimits = {
  readonly accounts: number;
  readonly slots: number;
  readonly codeBytes: number;
};

export const DEFAULT_HEAD_CACHE: HeadCacheLimits = {
  accounts: 200_000,
  slots: 500_000,
  codeBytes: 64 << 20,
};

export class HeadCache {
  /** The head whose state this is (undefined: none yet). */
  at: HeadPosition | undefined;
  /** By address (unprefixed hex); null: no such account. */
  private readonly accounts = new Map<string, AccountValue | null>();
  /** Storage roots the trie gave at a seal, by address: spares reading the account's leaf. */
  private readonly storageRoots = new Map<string, Uint8Array>();
  /** Slots by address, then slot (unprefixed hex). */
  private readonly slots = new Map<string, Map<string, Uint8Array>>();
  private slotCount = 0;
  private readonly code = new Map<string, Uint8Array>();
  private codeBytes = 0;

  constructor(private readonly limits: HeadCacheLimits = DEFAULT_HEAD_CACHE) {}

  account(key: string): AccountValue | null | undefined {
    return this.accounts.get(key);
  }

  putAccount(key: string, value: AccountValue | null): AccountValue | null {
    if (this.accounts.size >= this.limits.accounts && !this.accounts.has(key)) {
      const oldest = this.accounts.keys().next().value as string;
      this.accounts.delete(oldest);
      this.storageRoots.delete(oldest);
    }
    this.accounts.set(key, value);
    return value;
  }

  storageRoot(key: string): Uint8Array | undefined {
    return this.storageRoots.get(key);
  }

  slot(key: string, slot: string): Uint8Array | undefined {
    return this.slots.get(key)?.get(slot);
  }

  putSlot(key: string, slot: string, value: Uint8Array): Uint8Array {
    let slots = this.slots.get(key);
    if (slots === undefined) {
      // Whole addresses go, the oldest first, until a new one fits.
      while (this.slotCount >= this.limits.slots && this.slots.size > 0) {
        const oldest = this.slots.keys().next().value as string;
        this.slotCount -= this.slots.get(oldest)!.size;
        this.slots.delete(oldest);
      }
      slots = new Map();
      this.slots.set(key, slots);
    }
    if (!slots.has(slot)) this.slotCount++;
    slots.set(slot, value);
    return value;
  }

  codeOf(hash: string): Uint8Array | undefined {
    return this.code.get(hash);
  }

  putCode(hash: string, code: Uint8Array): Uint8Array {
    if (this.code.has(hash)) return code;
    while (this.codeBytes + code.length > this.limits.codeBytes && this.code.size > 0) {
      const oldest = this.code.keys().next().value as string;
      this.codeBytes -= this.code.get(oldest)!.length;
      this.code.delete(oldest);
    }
    this.code.set(hash, code);
    this.codeBytes += code.length;
    return code;
  }

  /**
   * A sealed block's writes, now the archive head's state: its accounts, slots (a wiped
   * account's other slots are zero), code, and the storage roots its seal computed.
   */
  fold(
    writes: Iterable<[string, AddressWrites]>,
    code: ReadonlyMap<string, Uint8Array>,
    storageRoots: ReadonlyMap<string, Uint8Array>,
  ): void {
    for (const [key, w] of writes) {
      if (w.account !== undefined) this.putAccount(key, w.account);
      if (w.wiped || w.account === null) {
        const gone = this.slots.get(key);
        if (gone !== undefined) {
          this.slotCount -= gone.size;
          this.slots.delete(key);
        }
      }
      // What was cached of a wiped account went above: its other slots are read anew (the
      // archive zeroed them with the block).
      if (w.slots !== undefined)
        for (const [slot, value] of w.slots) this.putSlot(key, slot, value);
      // A root the seal did not give (none computed for this state) is not known any more.
      const root = storageRoots.get(key);
      if (root !== undefined && this.accounts.has(key)) this.storageRoots.set(key, root);
      else this.storageRoots.delete(key);
    }
    for (const [hash, bytes] of code) this.putCode(hash, bytes);
  }

  clear(): void {
    this.at = undefined;
    this.accounts.clear();
    this.storageRoots.clear();
    this.slots.clear();
    this.slotCount = 0;
    this.code.clear();
    this.codeBytes = 0;
  }
}
