// What the block being replayed wrote so far, as the state diffs of its flashblocks gave it:
// the prefetch step asks it before the archive (a value the pending block wrote is never the
// upstream's), and the dry run reads it as the state its transactions start from.
import type { AccountRecord } from "../chain/types.ts";
import type { StateDiff } from "../pending/types.ts";
import { bytesToUnprefixedHex, padLeft } from "../util/hex.ts";

export class PendingWrites {
  /** null: the account was deleted. */
  private readonly accounts = new Map<string, AccountRecord | null>();
  private readonly slots = new Map<string, Map<string, Uint8Array>>();
  /** Accounts whose storage the block cleared: their slots not written since are zero. */
  private readonly wiped = new Set<string>();
  private readonly codes = new Map<string, Uint8Array>();

  /** One flashblock's diff, on top of the ones before it. */
  add(diff: StateDiff): void {
    for (const address of diff.wiped) {
      const key = bytesToUnprefixedHex(address);
      this.wiped.add(key);
      this.slots.delete(key);
    }
    for (const [address, account] of diff.accounts)
      this.accounts.set(bytesToUnprefixedHex(address), account ?? null);
    for (const [address, slot, value] of diff.storage) {
      const key = bytesToUnprefixedHex(address);
      let slots = this.slots.get(key);
      if (slots === undefined) {
        slots = new Map();
        this.slots.set(key, slots);
      }
      slots.set(bytesToUnprefixedHex(padLeft(slot, 32)), value);
    }
    for (const [hash, code] of diff.code) this.codes.set(bytesToUnprefixedHex(hash), code);
  }

  clear(): void {
    this.accounts.clear();
    this.slots.clear();
    this.wiped.clear();
    this.codes.clear();
  }

  /** undefined: not written; null: deleted. */
  account(address: Uint8Array): AccountRecord | null | undefined {
    return this.accounts.get(bytesToUnprefixedHex(address));
  }

  /** undefined: not written by the block (the head's value stands). */
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array | undefined {
    const key = bytesToUnprefixedHex(address);
    const value = this.slots.get(key)?.get(bytesToUnprefixedHex(padLeft(slot, 32)));
    if (value !== undefined) return value;
    return this.wiped.has(key) || this.accounts.get(key) === null ? new Uint8Array(0) : undefined;
  }

  code(codeHash: Uint8Array): Uint8Array | undefined {
    return this.codes.get(bytesToUnprefixedHex(codeHash));
  }
}
