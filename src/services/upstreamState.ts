// The contract between what executes or reads state (exec, rpc, the store's readers) and a live
// chain the local chain starts from (upstream/, implemented by ForkState): state at the fork
// block F, fetched on first use. Accounts and slots the local chain never wrote are read
// through it; whatever the local chain wrote is its own (the archive's).
import type { AccountRecord } from "../chain/types.ts";

/** A fork's base: the upstream chain at block F. */
export type ForkBase = {
  readonly chainId: bigint;
  /** F's number and hash. */
  readonly number: number;
  readonly hash: Uint8Array;
};

export type UpstreamState = {
  /** The account at F; undefined when absent. */
  account(address: Uint8Array): Promise<AccountRecord | undefined>;
  /** A slot at F, leading zeros trimmed (empty = zero). */
  storage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array>;
  /** The account's code at F (empty for none). */
  code(address: Uint8Array): Promise<Uint8Array>;
  /** Code by hash, when an account holding it was fetched (cache only). */
  codeByHash(codeHash: Uint8Array): Uint8Array | undefined;
  /** Cache only: undefined = not fetched yet, null = absent. Never asks the upstream. */
  peekAccount(address: Uint8Array): AccountRecord | null | undefined;
  /** Cache only: undefined = not fetched yet. Never asks the upstream. */
  peekStorage(address: Uint8Array, slot: Uint8Array): Uint8Array | undefined;
  /** Fetches these (one batch where the upstream takes batches); settles when all did. */
  prefetch(
    accounts: readonly Uint8Array[],
    slots: readonly (readonly [address: Uint8Array, slot: Uint8Array])[],
  ): Promise<void>;
};

/** The hashes of F's ancestors (BLOCKHASH, EIP-2935 below the fork). */
export type UpstreamBlockHashes = {
  /** F's ancestor at `number`; undefined above F or when the upstream has no such block. */
  canonicalHash(number: number): Promise<Uint8Array | undefined>;
};

/**
 * What the local archive knows of an address or slot: once the local chain wrote it (an
 * account row, an account history entry, a slot row), the archive's answer is the whole truth
 * and the upstream is never asked about it again.
 */
export type LocalStateKnowledge = {
  accountKnown(address: Uint8Array): boolean;
  slotKnown(address: Uint8Array, slot: Uint8Array): boolean;
};
