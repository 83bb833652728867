// The state eth_simulateV1 runs on: flat reads of the base block (plus the pending overlay), every
// write in memory, and the state root of each simulated block computed as geth does — the base
// block's trie (from the archive's trie nodes) with the accounts and slots written since applied.
import type { Common } from "@ethereumjs/common";
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import {
  Account,
  Address,
  bigIntToUnpaddedBytes,
  KECCAK256_NULL,
  KECCAK256_RLP,
} from "@ethereumjs/util";
import type { LayerStack } from "../../pending/layerStack.ts";
import type { StateView } from "../../pending/pendingState.ts";
import { bytesToUnprefixedHex, equalBytes, trimLeadingZeros } from "../../util/hex.ts";
import { FlatStateManager } from "../flatStateManager.ts";
import { BufferedTrieDb, type TrieNodeSource } from "../trieDb.ts";

type Dirty = {
  address: Uint8Array;
  slots: Map<string, Uint8Array>;
  /** Storage dropped since the last root (unless a reverted frame undid it, see below). */
  wiped: boolean;
  /** Dropped by the pre-confirmed block: no frame can have undone it. */
  wipedForSure: boolean;
};

export class SimStateManager extends FlatStateManager {
  /** Accounts (and their slots) written since the last state root. */
  private dirty = new Map<string, Dirty>();
  /** An account whose code the EVM library must not see while it checks the sender. */
  private disguised: string | undefined;
  private readonly trie: MerklePatriciaTrie | undefined;
  private readonly db: BufferedTrieDb | undefined;

  /**
   * `nodes` undefined: the archive keeps no trie nodes for the base state, and every state root
   * is reported as zero.
   */
  constructor(
    source: StateView,
    private readonly rootCommon: Common,
    baseRoot: Uint8Array,
    nodes: TrieNodeSource | undefined,
    opts: ConstructorParameters<typeof FlatStateManager>[1],
  ) {
    super(source, opts);
    if (nodes !== undefined) {
      this.db = new BufferedTrieDb(nodes);
      this.trie = this.trieAt(this.db, baseRoot);
    }
  }

  private trieAt(db: BufferedTrieDb, root: Uint8Array): MerklePatriciaTrie {
    return new MerklePatriciaTrie({
      db,
      root,
      useKeyHashing: true,
      valueEncoding: "view",
      common: this.rootCommon,
    });
  }

  private mark(address: Address): Dirty {
    const hex = address.toString();
    let d = this.dirty.get(hex);
    if (d === undefined) {
      d = { address: address.bytes, slots: new Map(), wiped: false, wipedForSure: false };
      this.dirty.set(hex, d);
    }
    return d;
  }

  /** The pending block's writes are not in its parent's trie: they count as written here. */
  markPending(state: LayerStack): void {
    const at = (address: Uint8Array) => {
      const hex = `0x${bytesToUnprefixedHex(address)}`;
      let d = this.dirty.get(hex);
      if (d === undefined) {
        d = { address, slots: new Map(), wiped: false, wipedForSure: false };
        this.dirty.set(hex, d);
      }
      return d;
    };
    state.forEachWrite({
      account: (address) => at(address),
      wiped(address) {
        const d = at(address);
        d.wiped = true;
        d.wipedForSure = true;
      },
      slot: (address, slot) => at(address).slots.set(bytesToUnprefixedHex(slot), slot),
    });
  }

  override async getAccount(address: Address): Promise<Account | undefined> {
    const account = await super.getAccount(address);
    if (account === undefined || this.disguised !== address.toString()) return account;
    // A copy without code: the sender checks of the EVM library then pass (geth skips them).
    return new Account(account.nonce, account.balance, account.storageRoot, KECCAK256_NULL);
  }

  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    const d = this.mark(address);
    if (account === undefined) {
      d.wiped = true;
      return this.deleteAccount(address);
    }
    if (this.disguised === address.toString() && equalBytes(account.codeHash, KECCAK256_NULL)) {
      const real = await super.getAccount(address);
      if (real !== undefined) account.codeHash = real.codeHash;
    }
    return super.putAccount(address, account);
  }

  override async deleteAccount(address: Address): Promise<void> {
    this.mark(address).wiped = true;
    // A deleted account's storage is gone with it (the flat reads would still find it).
    await this.clearStorage(address);
    return super.deleteAccount(address);
  }

  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    this.mark(address).slots.set(bytesToUnprefixedHex(key), key);
    return super.putStorage(address, key, value);
  }

  override async clearStorage(address: Address): Promise<void> {
    this.mark(address).wiped = true;
    return super.clearStorage(address);
  }

  /** Hides `address`'s code from getAccount until `disguise(undefined)`. */
  disguise(address: Address | undefined): void {
    this.disguised = address?.toString();
  }

  /**
   * The state root now: each written account re-encoded over the previous root, its storage
   * trie updated with its written slots (from empty when its storage was dropped).
   */
  override async getStateRoot(): Promise<Uint8Array> {
    if (this.trie === undefined || this.db === undefined) return new Uint8Array(32);
    for (const d of this.dirty.values()) {
      const address = d.address;
      const addr = new Address(address);
      const account = await super.getAccount(addr);
      if (account === undefined) {
        await this.trie.del(address);
        continue;
      }
      let storageRoot = KECCAK256_RLP;
      // A wipe undone by a reverted frame left no mark: the storage is the trie's.
      if (!d.wiped || (!d.wipedForSure && !this.isCleared(addr))) {
        const leaf = await this.trie.get(address);
        if (leaf !== null) storageRoot = (RLP.decode(leaf) as Uint8Array[])[2]!;
      }
      if (d.slots.size > 0) {
        const storage = this.trieAt(this.db, storageRoot);
        for (const slot of d.slots.values()) {
          const value = trimLeadingZeros(await this.getStorage(addr, slot));
          if (value.length === 0) await storage.del(slot);
          else await storage.put(slot, RLP.encode(value));
        }
        storageRoot = storage.root();
      }
      await this.trie.put(
        address,
        RLP.encode([
          bigIntToUnpaddedBytes(account.nonce),
          bigIntToUnpaddedBytes(account.balance),
          storageRoot,
          account.codeHash,
        ]),
      );
    }
    this.dirty = new Map();
    return this.trie.root();
  }
}
