// A forked chain's seal reads, before each value a block's write replaces (its change set's
// "before"), the chain's own or, for what it never wrote, the upstream's at F: a block may
// overwrite what it never read (the system contracts' ring-buffer slots, every block). What of
// it is not fetched yet, and its fetch, so that a sequencer can fetch it while the block is built
// instead of failing midway through the seal.
import type { LocalStateKnowledge, UpstreamState } from "../services/upstreamState.ts";
import type { TouchedSlot } from "./recordingStateManager.ts";

/** The accounts and slots a seal will read of the upstream that are not fetched yet. */
export type SealReads = { accounts: Uint8Array[]; slots: [Uint8Array, Uint8Array][] };

/** What the archive has of the state (a row, or a history: written by the chain). */
export type ArchiveState = LocalStateKnowledge & {
  currentAccount(address: Uint8Array): unknown;
};

/** What of the touched accounts and slots the seal will read of the upstream, not fetched yet. */
export function missingSealReads(
  up: UpstreamState,
  archive: ArchiveState,
  touched: {
    readonly accounts: Iterable<Uint8Array>;
    readonly slots: Iterable<TouchedSlot>;
  },
): SealReads | undefined {
  const accounts: Uint8Array[] = [];
  const slots: [Uint8Array, Uint8Array][] = [];
  for (const address of touched.accounts)
    if (
      archive.currentAccount(address) === undefined &&
      !archive.accountKnown(address) &&
      up.peekAccount(address) === undefined
    )
      accounts.push(address);
  for (const { address, slot } of touched.slots) {
    if (archive.slotKnown(address, slot)) continue;
    const account = up.peekAccount(address);
    if (account === undefined) accounts.push(address);
    else if (account?.codeHash !== undefined && up.peekStorage(address, slot) === undefined)
      slots.push([address, slot]);
  }
  return accounts.length === 0 && slots.length === 0 ? undefined : { accounts, slots };
}

/** Fetches what `missing()` names; rejects with the upstream's error if it cannot. */
export async function fetchSealReads(
  up: UpstreamState,
  missing: () => SealReads | undefined,
): Promise<void> {
  // Two passes at most: an account's read tells whether its slots are to be read.
  for (let pass = 0; pass < 2; pass++) {
    const m = missing();
    if (m === undefined) return;
    await Promise.all([
      ...m.accounts.map((a) => up.account(a)),
      ...m.slots.map(([a, s]) => up.storage(a, s)),
    ]);
  }
}
