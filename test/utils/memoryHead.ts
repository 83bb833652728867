// An archive's head state in memory, for unit tests of the executor's state (src/exec/state): the
// plain state and code a block executes on, the trie nodes its root is computed from, and a
// count of the reads that reached it (what the state's cache spared).
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import type { AccountRecord } from "../../src/chain/types.ts";
import {
  forkedHeadReads,
  type HeadPosition,
  type HeadReads,
  localHeadReads,
} from "../../src/exec/state/headReads.ts";
import { BufferedTrieDb } from "../../src/exec/trieDb.ts";
import type { UpstreamState } from "../../src/services/upstreamState.ts";
import { keccak256 } from "../../src/util/crypto.ts";
import { bytesToUnprefixedHex, hexToBytes } from "../../src/util/hex.ts";

const EMPTY = new Uint8Array(0);

export class MemoryHead {
  readonly accounts = new Map<string, AccountRecord>();
  /** address hex + slot hex → value (trimmed). */
  readonly slots = new Map<string, Uint8Array>();
  readonly code = new Map<string, Uint8Array>();
  readonly nodes = new Map<string, Uint8Array>();
  readonly roots = new Map<number, Uint8Array>();
  /** Accounts the chain ever wrote (a row, or a history entry once deleted). */
  readonly knownAccounts = new Set<string>();
  /** Reads of plain state and code that reached this archive. */
  reads = 0;
  head: HeadPosition | undefined;
  readonly trieDb = new BufferedTrieDb({
    trieNode: (k) => this.nodes.get(bytesToUnprefixedHex(k)),
  });

  /** The trie a state computes its roots in, over this archive's nodes. */
  trie(): MerklePatriciaTrie {
    return new MerklePatriciaTrie({ db: this.trieDb, useKeyHashing: true, valueEncoding: "view" });
  }

  /** A chain of its own over this archive; with `upstream`, a forked chain's. */
  headReads(upstream?: UpstreamState): HeadReads {
    const counted =
      <A extends unknown[], R>(f: (...a: A) => R) =>
      (...a: A): R => {
        this.reads++;
        return f(...a);
      };
    const store: Parameters<typeof localHeadReads>[0] = {
      headNumber: () => this.head?.number,
      canonicalHash: (n) => (this.head?.number === n ? this.head.hash : undefined),
      currentAccount: counted((a) => this.accounts.get(bytesToUnprefixedHex(a))),
      currentStorage: counted(
        (a, s) => this.slots.get(bytesToUnprefixedHex(a) + bytesToUnprefixedHex(s)) ?? EMPTY,
      ),
      currentStorageSlots: (a) => {
        const prefix = bytesToUnprefixedHex(a);
        return [...this.slots.entries()]
          .filter(([k, v]) => k.startsWith(prefix) && v.length > 0)
          .map(([k]) => hexToBytes(k.slice(40)));
      },
      code: counted((h) => this.code.get(bytesToUnprefixedHex(h))),
      accountKnown: (a) => this.knownAccounts.has(bytesToUnprefixedHex(a)),
      slotKnown: (a, s) => this.slots.has(bytesToUnprefixedHex(a) + bytesToUnprefixedHex(s)),
    };
    const rootAt = (n: number) => this.roots.get(n)!;
    return upstream === undefined
      ? localHeadReads(store, rootAt)
      : forkedHeadReads(store, rootAt, upstream, keccak256);
  }

  /** A block's write of an account (undefined: deleted). */
  writeAccount(address: Uint8Array, record: AccountRecord | undefined): void {
    const key = bytesToUnprefixedHex(address);
    this.knownAccounts.add(key);
    if (record === undefined) this.accounts.delete(key);
    else this.accounts.set(key, record);
  }

  writeSlot(address: Uint8Array, slot: Uint8Array, value: Uint8Array): void {
    this.slots.set(bytesToUnprefixedHex(address) + bytesToUnprefixedHex(slot), value);
  }

  /** Block `number` committed: its trie nodes (taken from the trie's buffer) and root, as head. */
  commit(number: number, root: Uint8Array): HeadPosition {
    for (const [k, v] of this.trieDb.takePending()) this.nodes.set(k, v);
    this.roots.set(number, root);
    this.head = { number, hash: Uint8Array.of(number, ...root.subarray(0, 31)) };
    return this.head;
  }
}
