// A forked chain's state as its readers see it (the RPC layer, the call worker): the archive's
// answer for whatever the chain wrote (it has a row or history of it), and for the rest the
// upstream's value at F, from the datadir's cache. A value not fetched yet is a miss, handed to
// `onMiss`: the RPC layer notes it and runs the call again once it is fetched
// (services/stateMisses.ts); the call worker's EVM waits for it (UpstreamReadNeeded).
// Blocks below F never read through here: those calls go to the upstream.
import type { StateReader } from "../store/archive.ts";
import { FlashnodeError } from "../util/errors.ts";
import type { LocalStateKnowledge, UpstreamState } from "./upstreamState.ts";

const EMPTY = new Uint8Array(0);

/** A read of upstream state not fetched yet; `fetch()` fetches it (then read again). */
export class UpstreamReadNeeded extends FlashnodeError {
  readonly code = "UPSTREAM_READ_NEEDED";
  constructor(readonly fetch: () => Promise<void>) {
    super("state of the fork's upstream was not fetched yet");
  }
}

/** A miss: the account, or the slot (with its account, when that was missed too). */
export type StateMiss =
  | { readonly kind: "account"; readonly address: Uint8Array }
  | { readonly kind: "slot"; readonly address: Uint8Array; readonly slot: Uint8Array };

/**
 * What a miss is, as a fetch: the account and slot reads that answer it, in one batch. A failed
 * read rejects (prefetch() would settle): the reader that waits for it and reads again must not
 * read again for ever while the upstream is down.
 */
export function fetchMiss(upstream: UpstreamState, miss: StateMiss): () => Promise<void> {
  return async () => {
    await Promise.all([
      upstream.account(miss.address),
      ...(miss.kind === "slot" ? [upstream.storage(miss.address, miss.slot)] : []),
    ]);
  };
}

/** Throws UpstreamReadNeeded: what a reader does that can wait for the upstream. */
export function throwMiss(upstream: UpstreamState): (miss: StateMiss) => void {
  return (miss) => {
    throw new UpstreamReadNeeded(fetchMiss(upstream, miss));
  };
}

export function forkedStateReader(
  store: StateReader & LocalStateKnowledge,
  upstream: UpstreamState,
  onMiss: (miss: StateMiss) => void,
): StateReader & LocalStateKnowledge {
  function upstreamAccount(address: Uint8Array) {
    const peeked = upstream.peekAccount(address);
    if (peeked === undefined) onMiss({ kind: "account", address });
    return peeked;
  }
  return {
    account(address, block, head) {
      const local = store.account(address, block, head);
      if (local !== undefined || store.accountKnown(address)) return local;
      return upstreamAccount(address) ?? undefined;
    },
    storage(address, slot, block, head) {
      if (store.slotKnown(address, slot)) return store.storage(address, slot, block, head);
      const peeked = upstream.peekAccount(address);
      if (peeked === undefined) {
        onMiss({ kind: "slot", address, slot });
        return EMPTY;
      }
      // No code at F, no storage at F: an account the chain created never asks the upstream.
      if (peeked === null || peeked.codeHash === undefined) return EMPTY;
      const value = upstream.peekStorage(address, slot);
      if (value !== undefined) return value;
      onMiss({ kind: "slot", address, slot });
      return EMPTY;
    },
    code: (codeHash) => store.code(codeHash) ?? upstream.codeByHash(codeHash),
    accountKnown: (address) => store.accountKnown(address),
    slotKnown: (address, slot) => store.slotKnown(address, slot),
  };
}
