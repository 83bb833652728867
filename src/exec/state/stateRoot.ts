// The state root of a block: the parent's trie with the block's writes put into it, once, where a
// root is asked for (the seal; before Byzantium, each receipt). Nothing writes the trie while
// transactions run. Its nodes (and the code it names, under the key the EVM library gives code)
// go to the trie's database, which hands them to the block's archive write.
import type { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { CODEHASH_PREFIX } from "@ethereumjs/statemanager";
import { bigIntToUnpaddedBytes, concatBytes, KECCAK256_RLP } from "@ethereumjs/util";
import { bytesToUnprefixedHex, hexToBytes } from "../../util/hex.ts";
import type { AccountValue, AddressWrites } from "./blockOverlay.ts";

export type RootInputs = {
  readonly parentRoot: Uint8Array;
  /** The block's writes, by address (unprefixed hex). */
  readonly writes: Iterable<[string, AddressWrites]>;
  /** The account as it is now, for an address whose slots alone were written. */
  current(key: string, w: AddressWrites): AccountValue | null | Promise<AccountValue | null>;
  /** A parent account's storage root when known without reading the trie. */
  knownStorageRoot(key: string): Uint8Array | undefined;
  /** Code the block deployed, by hash (unprefixed hex). */
  readonly code: ReadonlyMap<string, Uint8Array>;
};

export type StateRoot = {
  readonly root: Uint8Array;
  /** Each written account's storage root now. */
  readonly storageRoots: Map<string, Uint8Array>;
};

async function storageRootInTrie(trie: MerklePatriciaTrie, address: Uint8Array) {
  const leaf = await trie.get(address);
  return leaf === null ? KECCAK256_RLP : (RLP.decode(leaf) as Uint8Array[])[2]!;
}

export async function stateRootOf(
  trie: MerklePatriciaTrie,
  inputs: RootInputs,
): Promise<StateRoot> {
  trie.root(inputs.parentRoot);
  const storageRoots = new Map<string, Uint8Array>();
  for (const [key, w] of inputs.writes) {
    if (!w.written) continue;
    const account = w.account !== undefined ? w.account : await inputs.current(key, w);
    if (account === null) {
      await trie.del(w.address);
      storageRoots.set(key, KECCAK256_RLP);
      continue;
    }
    let storageRoot = w.wiped
      ? KECCAK256_RLP
      : (inputs.knownStorageRoot(key) ?? (await storageRootInTrie(trie, w.address)));
    if (w.slots !== undefined && w.slots.size > 0) {
      const storage = trie.shallowCopy(false);
      storage.root(storageRoot);
      for (const [slot, value] of w.slots) {
        if (value.length > 0) await storage.put(hexToBytes(slot), RLP.encode(value));
        else await storage.del(hexToBytes(slot));
      }
      storageRoot = storage.root();
    }
    storageRoots.set(key, storageRoot);
    await trie.put(
      w.address,
      RLP.encode([
        bigIntToUnpaddedBytes(account.nonce),
        bigIntToUnpaddedBytes(account.balance),
        storageRoot,
        account.codeHash,
      ]),
    );
    const code = inputs.code.get(bytesToUnprefixedHex(account.codeHash));
    if (code !== undefined)
      await trie.database().put(concatBytes(CODEHASH_PREFIX, account.codeHash), code);
  }
  return { root: trie.root(), storageRoots };
}
