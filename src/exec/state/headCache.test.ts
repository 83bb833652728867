import assert from "node:assert/strict";
import { test } from "node:test";
import { KECCAK256_NULL } from "@ethereumjs/util";
import { AddressWrites } from "./blockOverlay.ts";
import { HeadCache } from "./headCache.ts";

const A = new Uint8Array(20).fill(0xaa);

function writes(slot: string, value: number): [string, AddressWrites][] {
  const w = new AddressWrites(A);
  w.account = { nonce: 1n, balance: 0n, codeHash: KECCAK256_NULL };
  w.slots = new Map([[slot, Uint8Array.of(value)]]);
  return [["aa", w]];
}

test("a block folded without a computed storage root forgets the one kept from before", () => {
  const cache = new HeadCache();
  const root = new Uint8Array(32).fill(7);
  cache.fold(writes("01", 1), new Map(), new Map([["aa", root]]));
  assert.deepEqual(cache.storageRoot("aa"), root);
  // The next block writes another slot of it, and no root was computed for what it left.
  cache.fold(writes("02", 2), new Map(), new Map());
  assert.equal(cache.storageRoot("aa"), undefined, "a stale root would give a wrong state root");
  assert.deepEqual(cache.slot("aa", "01"), Uint8Array.of(1));
  assert.deepEqual(cache.slot("aa", "02"), Uint8Array.of(2));
});

test("bounded: the oldest accounts, addresses' slots and code go first", () => {
  const cache = new HeadCache({ accounts: 2, slots: 2, codeBytes: 4 });
  for (const k of ["a", "b", "c"]) cache.putAccount(k, null);
  assert.equal(cache.account("a"), undefined);
  assert.equal(cache.account("c"), null);
  cache.putSlot("a", "01", Uint8Array.of(1));
  cache.putSlot("a", "02", Uint8Array.of(2));
  cache.putSlot("b", "01", Uint8Array.of(3));
  assert.equal(cache.slot("a", "01"), undefined, "address a's slots went whole");
  assert.deepEqual(cache.slot("b", "01"), Uint8Array.of(3));
  cache.putCode("h1", Uint8Array.of(1, 2, 3));
  cache.putCode("h2", Uint8Array.of(4, 5));
  assert.equal(cache.codeOf("h1"), undefined);
  assert.deepEqual(cache.codeOf("h2"), Uint8Array.of(4, 5));
});
