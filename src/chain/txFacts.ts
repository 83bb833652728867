// What is known of a decoded transaction without asking the EVM library again: the bytes it was
// decoded from, its hash and its sender. The library's transaction re-encodes itself for its hash,
// its L1 fee and its place in the block (serialize(), ~7 µs and a few allocations each) and
// derives its sender's address from the recovered key at every getSenderAddress() (a keccak and
// an Address): a transaction went through each of these 3–5 times between intake and its block.
// The facts are kept beside the transaction object (frozen, so they stay true) for its lifetime.
import { Address } from "@ethereumjs/util";
import { keccak256 } from "../util/crypto.ts";

/** What every transaction object of a block has (the library's and an OP deposit alike). */
type Transaction = {
  serialize(): Uint8Array;
  hash(): Uint8Array;
  getSenderAddress(): Address;
};

type Facts = { raw?: Uint8Array; hash?: Uint8Array; sender?: Address };

const facts = new WeakMap<object, Facts>();

function factsOf(tx: object): Facts {
  let f = facts.get(tx);
  if (f === undefined) {
    f = {};
    facts.set(tx, f);
  }
  return f;
}

/**
 * `tx` was decoded from `raw`, its binary (EIP-2718) encoding as the block body holds it; `hash`
 * when the caller has it already. The library refuses non-canonical encodings (RLP lengths,
 * leading zeros), so these bytes are what `tx.serialize()` gives.
 */
export function rememberEncoding(tx: object, raw: Uint8Array, hash?: Uint8Array): void {
  const f = factsOf(tx);
  f.raw = raw;
  if (hash !== undefined) f.hash = hash;
}

/** The transaction's binary encoding: the bytes it was decoded from, or its serialization. */
export function encodingOf(tx: Transaction): Uint8Array {
  const f = factsOf(tx);
  f.raw ??= tx.serialize();
  return f.raw;
}

/** The transaction's hash: keccak256 of its encoding, computed once. */
export function hashOf(tx: Transaction): Uint8Array {
  const f = factsOf(tx);
  if (f.hash === undefined) f.hash = f.raw === undefined ? tx.hash() : keccak256(f.raw);
  return f.hash;
}

/**
 * `tx`, decoded unfrozen, made to answer getSenderAddress() with one Address, its recovered key
 * hashed once by the native keccak (the library hashes it in JS at each call, and runTx calls it
 * too); then frozen, as the library freezes what it decodes.
 */
export function pinSender<T extends Transaction & { getSenderPublicKey(): Uint8Array }>(tx: T): T {
  let sender: Address | undefined;
  const getSenderAddress = () => {
    sender ??= new Address(Uint8Array.from(keccak256(tx.getSenderPublicKey()).subarray(12)));
    return sender;
  };
  Object.defineProperty(tx, "getSenderAddress", { value: getSenderAddress });
  return Object.freeze(tx);
}

/** The transaction's sender (its signature recovered once); throws as getSenderAddress() does. */
export function senderOf(tx: Transaction): Address {
  const f = factsOf(tx);
  f.sender ??= tx.getSenderAddress();
  return f.sender;
}
