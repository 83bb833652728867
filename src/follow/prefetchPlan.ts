// What a flashblock (or block) will read that can be told before running it: each transaction's
// sender, its recipient (with its code), the accounts and slots of its access list, and the
// block's fee recipient; and, of those, what is not here yet — not written by the chain since
// its base block, not written by the pending block, not fetched from the upstream.
import type { BlockTransaction } from "../chain/op/blockTx.ts";
import { isDepositTx } from "../chain/op/depositTx.ts";
import type { UpstreamState } from "../services/upstreamState.ts";
import type { ChainStore } from "../store/archive.ts";
import { bytesToUnprefixedHex, padLeft } from "../util/hex.ts";
import type { PendingWrites } from "./pendingWrites.ts";

/** Accounts and slots to read, each once. */
export class ReadSet {
  readonly accounts = new Map<string, Uint8Array>();
  readonly slots = new Map<string, readonly [Uint8Array, Uint8Array]>();

  account(address: Uint8Array): void {
    this.accounts.set(bytesToUnprefixedHex(address), address);
  }

  slot(address: Uint8Array, slot: Uint8Array): void {
    const word = padLeft(slot, 32);
    this.slots.set(bytesToUnprefixedHex(address) + bytesToUnprefixedHex(word), [address, word]);
  }

  hasAccount(address: Uint8Array): boolean {
    return this.accounts.has(bytesToUnprefixedHex(address));
  }

  hasSlot(address: Uint8Array, slot: Uint8Array): boolean {
    return this.slots.has(bytesToUnprefixedHex(address) + bytesToUnprefixedHex(padLeft(slot, 32)));
  }

  get size(): number {
    return this.accounts.size + this.slots.size;
  }
}

/** Whether a read has to go to the upstream (answered by nothing held here). */
export type StateKnowledge = {
  accountMissing(address: Uint8Array): boolean;
  slotMissing(address: Uint8Array, slot: Uint8Array): boolean;
};

type AccessListTx = { readonly accessList?: readonly (readonly [Uint8Array, Uint8Array[]])[] };

/** Everything `txs` name before they run, in a block whose fee recipient is `coinbase`. */
export function namedReads(txs: readonly BlockTransaction[], coinbase: Uint8Array): ReadSet {
  const out = new ReadSet();
  out.account(coinbase);
  for (const tx of txs) {
    try {
      out.account(senderOf(tx));
    } catch {
      // A signature that recovers no sender: the executor refuses the transaction.
    }
    if (tx.to !== undefined) out.account(tx.to.bytes);
    for (const [address, keys] of (tx as AccessListTx).accessList ?? []) {
      out.account(address);
      for (const key of keys) out.slot(address, key);
    }
  }
  return out;
}

/** Of `reads`, what the upstream has to be asked for. */
export function missingReads(reads: ReadSet, knowledge: StateKnowledge): ReadSet {
  const out = new ReadSet();
  for (const a of reads.accounts.values()) if (knowledge.accountMissing(a)) out.account(a);
  for (const [a, s] of reads.slots.values()) if (knowledge.slotMissing(a, s)) out.slot(a, s);
  return out;
}

type Store = Pick<ChainStore, "currentAccount" | "accountKnown" | "slotKnown">;

/**
 * What is held here, as the executor's state reads it (exec/state/headReads.ts): the pending
 * block's writes, then the archive's (an account or slot the chain wrote), then what was fetched.
 */
export function heldState(
  store: Store,
  upstream: UpstreamState,
  pending: PendingWrites,
): StateKnowledge {
  const accountMissing = (address: Uint8Array) =>
    pending.account(address) === undefined &&
    store.currentAccount(address) === undefined &&
    !store.accountKnown(address) &&
    upstream.peekAccount(address) === undefined;
  return {
    accountMissing,
    slotMissing(address, slot) {
      if (pending.storage(address, slot) !== undefined || store.slotKnown(address, slot))
        return false;
      // The upstream's account decides (as in headReads.ts): not fetched yet, both are asked.
      const account = upstream.peekAccount(address);
      if (account === undefined) return true;
      // No code at the base block, no storage there: nothing to ask.
      return account?.codeHash !== undefined && upstream.peekStorage(address, slot) === undefined;
    },
  };
}

/** Who sends a transaction (a deposit's `from`). */
export function senderOf(tx: BlockTransaction): Uint8Array {
  return isDepositTx(tx) ? tx.from.bytes : tx.getSenderAddress().bytes;
}
