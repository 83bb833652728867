// What a block executes on: the state of the archive's head, read from its flat tables (plain
// state, code by hash), never through the trie; a forked chain's accounts and slots it never
// wrote are its upstream's at the fork block F. A read answers synchronously when it can (the
// archive is a local LMDB), with a promise only when the upstream must be asked.
import type { AccountRecord } from "../../chain/types.ts";
import type { UpstreamState } from "../../services/upstreamState.ts";
import type { ChainStore } from "../../store/archive.ts";
import { equalBytes } from "../../util/hex.ts";

const EMPTY = new Uint8Array(0);

/** Which block the head is: a sealed block's number and hash. */
export type HeadPosition = { readonly number: number; readonly hash: Uint8Array };

export type HeadReads = {
  /** The archive's head (undefined: an archive with no block yet, a new chain's genesis). */
  position(): HeadPosition | undefined;
  /** The root of the trie the chain keeps, after block `number` (a fork's: its own writes'). */
  stateRoot(number: number): Uint8Array;
  account(address: Uint8Array): AccountRecord | undefined | Promise<AccountRecord | undefined>;
  /** Leading zeros trimmed (empty: zero). */
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array | Promise<Uint8Array>;
  code(codeHash: Uint8Array, address: Uint8Array): Uint8Array | Promise<Uint8Array>;
  /**
   * Whether the account holds a non-zero slot (EIP-7610's collision check): a forked chain
   * answers for the slots it wrote, as its own trie's storage root does.
   */
  hasStorage(address: Uint8Array): boolean;
};

/** What the head's reads need of the archive (the follower's dry run and prefetch too). */
export type HeadStore = Pick<
  ChainStore,
  | "headNumber"
  | "canonicalHash"
  | "currentAccount"
  | "currentStorage"
  | "currentStorageSlots"
  | "code"
  | "accountKnown"
  | "slotKnown"
>;

function position(store: HeadStore): HeadPosition | undefined {
  const number = store.headNumber();
  const hash = number === undefined ? undefined : store.canonicalHash(number);
  return number === undefined || hash === undefined ? undefined : { number, hash };
}

/** A chain of its own: everything is in the archive. */
export function localHeadReads(
  store: HeadStore,
  stateRoot: (number: number) => Uint8Array,
): HeadReads {
  return {
    position: () => position(store),
    stateRoot,
    account: (address) => store.currentAccount(address),
    storage: (address, slot) => store.currentStorage(address, slot),
    code: (codeHash) => store.code(codeHash) ?? EMPTY,
    hasStorage: (address) => store.currentStorageSlots(address).length > 0,
  };
}

/**
 * A forked chain: an account or slot the archive has a row (or history) of was written by the
 * chain and is the archive's; any other is the upstream's at F. A slot of an account that had
 * no code at F was never the upstream's.
 */
export function forkedHeadReads(
  store: HeadStore,
  stateRoot: (number: number) => Uint8Array,
  upstream: UpstreamState,
  keccak: (data: Uint8Array) => Uint8Array,
): HeadReads {
  const upstreamAccount = (address: Uint8Array) => {
    const peeked = upstream.peekAccount(address);
    return peeked === undefined ? upstream.account(address) : (peeked ?? undefined);
  };
  const upstreamSlot = (address: Uint8Array, slot: Uint8Array, at: AccountRecord | undefined) => {
    if (at?.codeHash === undefined) return EMPTY;
    return upstream.peekStorage(address, slot) ?? upstream.storage(address, slot);
  };
  return {
    position: () => position(store),
    stateRoot,
    account(address) {
      const local = store.currentAccount(address);
      if (local !== undefined || store.accountKnown(address)) return local;
      return upstreamAccount(address);
    },
    storage(address, slot) {
      if (store.slotKnown(address, slot)) return store.currentStorage(address, slot);
      const at = upstreamAccount(address);
      return at instanceof Promise
        ? at.then((a) => upstreamSlot(address, slot, a))
        : upstreamSlot(address, slot, at);
    },
    code(codeHash, address) {
      const known = store.code(codeHash) ?? upstream.codeByHash(codeHash);
      if (known !== undefined) return known;
      // Fetched by address, kept only if it is the code the account names.
      return upstream.code(address).then((c) => (equalBytes(keccak(c), codeHash) ? c : EMPTY));
    },
    hasStorage: (address) => store.currentStorageSlots(address).length > 0,
  };
}
