// The list trie's roots against the EVM library's Merkle-Patricia trie (the reference every
// block root was computed with before): lists around the RLP key boundaries (127/128, 255/256),
// items small enough to be embedded in their parent, and roots taken as the list grows.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { bytesToHex } from "../util/hex.ts";
import { ListTrie, listRoot } from "./listTrie.ts";

/** Deterministic items: sizes from 1 byte (embedded nodes) to a receipt's few hundred. */
function items(count: number, seed: number, maxSize = 600): Uint8Array[] {
  let s = seed;
  const next = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s >>> 8;
  };
  return Array.from({ length: count }, () => {
    const size = 1 + (next() % maxSize);
    return Uint8Array.from({ length: size }, () => next() & 0xff);
  });
}

async function referenceRoot(list: readonly Uint8Array[]): Promise<string> {
  const trie = new MerklePatriciaTrie();
  for (const [i, item] of list.entries()) await trie.put(RLP.encode(i), item);
  return bytesToHex(trie.root());
}

describe("ListTrie", () => {
  test("an empty list has the empty trie's root", async () => {
    assert.equal(bytesToHex(new ListTrie().root()), await referenceRoot([]));
    assert.equal(bytesToHex(listRoot([])), await referenceRoot([]));
  });

  test("whole lists have the library trie's root, across the key-length boundaries", async () => {
    for (const count of [1, 2, 3, 15, 16, 17, 127, 128, 129, 130, 255, 256, 257, 300, 1100]) {
      const list = items(count, count);
      assert.equal(bytesToHex(listRoot(list)), await referenceRoot(list), `${count} items`);
    }
  });

  test("tiny items (nodes embedded in their parent instead of hashed)", async () => {
    for (const count of [1, 2, 5, 40, 129, 260]) {
      const list = items(count, 7 + count, 4);
      assert.equal(bytesToHex(listRoot(list)), await referenceRoot(list), `${count} items`);
    }
  });

  test("a root taken as the list grows equals the root of the list so far", async () => {
    const list = items(400, 99);
    const trie = new ListTrie();
    const reference = new MerklePatriciaTrie();
    // Growth in uneven steps, as flashblocks add transactions: some roots cover one item more.
    const steps = [1, 1, 3, 50, 1, 70, 2, 1, 100, 130, 41];
    let at = 0;
    for (const step of steps) {
      for (const item of list.slice(at, at + step)) {
        trie.push(item);
        await reference.put(RLP.encode(at), item);
        at++;
      }
      assert.equal(trie.length, at);
      assert.equal(bytesToHex(trie.root()), bytesToHex(reference.root()), `after ${at} items`);
      // A second call without a push is the same root.
      assert.equal(bytesToHex(trie.root()), bytesToHex(reference.root()));
    }
    assert.equal(at, list.length);
  });

  test("an empty item is refused (it would delete its key in a trie)", () => {
    assert.throws(() => new ListTrie().push(new Uint8Array(0)), /cannot be empty/);
  });
});
