// The trie of an ordered list (a block's transactions, receipts or withdrawals: key RLP(index),
// value the item's consensus bytes), as geth's DeriveSha roots it, kept in memory as the list
// grows. push() only links the new leaf; root() hashes the nodes changed since the last root and
// reuses the hashes of the rest. The library's trie instead encodes, hashes and stores every node
// on the path at each insert (a few hundred µs an entry in a block of a few hundred), and a
// flashblock needs the root only once, for all its new entries.
import { type Input, RLP } from "@ethereumjs/rlp";
import { keccak256 } from "../util/crypto.ts";

/** keccak256(RLP("")): the root of an empty trie. */
const EMPTY_ROOT = keccak256(Uint8Array.of(0x80));
const EMPTY = new Uint8Array(0);

type Leaf = { kind: "leaf"; path: Uint8Array; value: Uint8Array; ref: Input | undefined };
type Extension = { kind: "extension"; path: Uint8Array; child: TrieNode; ref: Input | undefined };
type Branch = {
  kind: "branch";
  children: (TrieNode | undefined)[];
  value: Uint8Array | undefined;
  ref: Input | undefined;
};
type TrieNode = Leaf | Extension | Branch;

function nibbles(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i]! >> 4;
    out[2 * i + 1] = key[i]! & 15;
  }
  return out;
}

/** Hex-prefix encoding of a nibble path (yellow paper, appendix C). */
function hexPrefix(path: Uint8Array, leaf: boolean): Uint8Array {
  const odd = path.length % 2;
  const out = new Uint8Array(1 + (path.length >> 1));
  out[0] = ((leaf ? 2 : 0) + odd) << 4;
  let i = 0;
  if (odd === 1) out[0] |= path[i++]!;
  for (let o = 1; i < path.length; i += 2, o++) out[o] = (path[i]! << 4) | path[i + 1]!;
  return out;
}

function sharedPrefix(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

function leaf(path: Uint8Array, value: Uint8Array): Leaf {
  return { kind: "leaf", path, value, ref: undefined };
}

function branch(): Branch {
  return {
    kind: "branch",
    children: new Array(16).fill(undefined),
    value: undefined,
    ref: undefined,
  };
}

/** `key` (nibbles, from `at`) set to `value` under `node`; every node on its path loses its hash. */
function insert(
  node: TrieNode | undefined,
  key: Uint8Array,
  at: number,
  value: Uint8Array,
): TrieNode {
  if (node === undefined) return leaf(key.subarray(at), value);
  node.ref = undefined;
  if (node.kind === "branch") {
    if (at === key.length) node.value = value;
    else node.children[key[at]!] = insert(node.children[key[at]!], key, at + 1, value);
    return node;
  }
  const rest = key.subarray(at);
  const n = sharedPrefix(node.path, rest);
  if (node.kind === "extension" && n === node.path.length) {
    node.child = insert(node.child, key, at + n, value);
    return node;
  }
  if (node.kind === "leaf" && n === node.path.length && n === rest.length) {
    node.value = value;
    return node;
  }
  // The paths part after n shared nibbles: a branch there holds both.
  const split = branch();
  if (node.kind === "leaf") {
    if (n === node.path.length) split.value = node.value;
    else split.children[node.path[n]!] = leaf(node.path.subarray(n + 1), node.value);
  } else {
    const tail = node.path.subarray(n + 1);
    // The extension's subtree is unchanged: its hash is kept.
    split.children[node.path[n]!] =
      tail.length === 0
        ? node.child
        : { kind: "extension", path: tail, child: node.child, ref: undefined };
  }
  if (n === rest.length) split.value = value;
  else split.children[rest[n]!] = leaf(rest.subarray(n + 1), value);
  return n === 0
    ? split
    : { kind: "extension", path: rest.subarray(0, n), child: split, ref: undefined };
}

/** The node's RLP structure, its children by reference. */
function raw(node: TrieNode): Input {
  if (node.kind === "leaf") return [hexPrefix(node.path, true), node.value];
  if (node.kind === "extension") return [hexPrefix(node.path, false), reference(node.child)];
  const out: Input[] = node.children.map((c) => (c === undefined ? EMPTY : reference(c)));
  out.push(node.value ?? EMPTY);
  return out;
}

/** How a parent refers to a node: its hash, or the node itself when its encoding is shorter. */
function reference(node: TrieNode): Input {
  if (node.ref === undefined) {
    const r = raw(node);
    const encoded = RLP.encode(r);
    node.ref = encoded.length < 32 ? r : keccak256(encoded);
  }
  return node.ref;
}

/** An ordered list's trie, grown one item at a time. */
export class ListTrie {
  private top: TrieNode | undefined;
  private count = 0;
  private rootHash: Uint8Array | undefined = EMPTY_ROOT;

  get length(): number {
    return this.count;
  }

  /** Appends the next item (its consensus bytes, never empty). */
  push(value: Uint8Array): void {
    // An empty value would delete the key in a trie: no list item is empty.
    if (value.length === 0) throw new Error("a list trie's item cannot be empty");
    this.top = insert(this.top, nibbles(RLP.encode(this.count)), 0, value);
    this.count++;
    this.rootHash = undefined;
  }

  /** The root; only the nodes changed since the last call are hashed again. */
  root(): Uint8Array {
    if (this.rootHash === undefined)
      this.rootHash = this.top === undefined ? EMPTY_ROOT : keccak256(RLP.encode(raw(this.top)));
    return this.rootHash;
  }
}

/** The root of a whole list's trie, in one pass. */
export function listRoot(items: readonly Uint8Array[]): Uint8Array {
  const trie = new ListTrie();
  for (const item of items) trie.push(item);
  return trie.root();
}
