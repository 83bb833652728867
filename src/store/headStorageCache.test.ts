import assert from "node:assert/strict";
import { test } from "node:test";
import { HeadStorageCache } from "./headStorageCache.ts";

function key(address: number, slot: number): Uint8Array {
  const k = new Uint8Array(52);
  k.fill(address, 0, 20);
  new DataView(k.buffer).setUint32(48, slot);
  return k;
}

test("head storage cache: a hit at the same head, a miss at another head (number or hash)", () => {
  const cache = new HeadStorageCache();
  let reads = 0;
  let stored = 1;
  const read = () => {
    reads++;
    return new Uint8Array([stored]);
  };
  const h1 = new Uint8Array(32).fill(1);
  cache.atHead(5, h1);
  assert.deepEqual(cache.get(key(1, 7), read), new Uint8Array([1]));
  assert.deepEqual(cache.get(key(1, 7), read), new Uint8Array([1]));
  assert.equal(reads, 1, "the second read is served from memory");
  // A copy of the same head (the hash read again from the store) keeps the entries.
  cache.atHead(5, h1.slice());
  cache.get(key(1, 7), read);
  assert.equal(reads, 1);
  // The same number with another hash (a rewound and rebuilt chain) starts over.
  stored = 2;
  cache.atHead(5, new Uint8Array(32).fill(2));
  assert.deepEqual(cache.get(key(1, 7), read), new Uint8Array([2]));
  assert.equal(reads, 2);
  stored = 3;
  cache.atHead(6, new Uint8Array(32).fill(3));
  assert.deepEqual(cache.get(key(1, 7), read), new Uint8Array([3]));
  assert.equal(reads, 3);
  // Keys that differ in one byte anywhere are different entries.
  for (let i = 0; i < 52; i++) {
    const k = key(1, 7);
    k[i] = k[i]! ^ 0x80;
    stored = 100 + i;
    assert.deepEqual(cache.get(k, read), new Uint8Array([100 + i]), `byte ${i}`);
  }
  assert.deepEqual(cache.get(key(1, 7), () => new Uint8Array([9])).length, 1);
});

test("head storage cache: without a head hash nothing is kept", () => {
  const cache = new HeadStorageCache();
  let reads = 0;
  const read = () => {
    reads++;
    return new Uint8Array([1]);
  };
  cache.atHead(0, undefined);
  cache.get(key(2, 2), read);
  cache.get(key(2, 2), read);
  assert.equal(reads, 2);
});

test("head storage cache: many keys colliding in one place all read right", () => {
  const cache = new HeadStorageCache();
  cache.atHead(1, new Uint8Array(32));
  // 200k keys over 65,536 places: collisions replace entries, never answer for another key.
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < 200_000; i++) {
      const v = cache.get(
        key(i % 7, i),
        () => new Uint8Array([i & 0xff, (i >> 8) & 0xff, i >> 16]),
      );
      assert.equal(v[0]! | (v[1]! << 8) | (v[2]! << 16), i);
    }
  }
  assert.ok(cache.hits > 0, "some entries survive the round");
});
