// eth_getProof's service, implemented in exec/proofs.ts.

/** Merkle proofs from the archive's state trie nodes (eth_getProof). */
export type ProofService = {
  /** The account's proof under `stateRoot`, and its storage root (undefined: no account). */
  account(
    stateRoot: Uint8Array,
    address: Uint8Array,
  ): Promise<{ proof: Uint8Array[]; storageRoot: Uint8Array | undefined }>;
  /** A storage slot's proof under the account's storage root. */
  storage(storageRoot: Uint8Array, slot: Uint8Array): Promise<Uint8Array[]>;
  /** Whether the archive holds the trie nodes of this state root (proofs can be made there). */
  holds(stateRoot: Uint8Array): boolean;
};
