import assert from "node:assert/strict";
import { test } from "node:test";
import { NO_ROW, SlotRowCache, slotRowCacheTableBytes } from "./slotRowCache.ts";

function key(address: number, slot: number): Uint8Array {
  const k = new Uint8Array(52);
  k.fill(address, 0, 20);
  new DataView(k.buffer).setUint32(48, slot);
  return k;
}

test("slot row cache: a hit at the same head, a miss at another head (number or hash)", () => {
  const cache = new SlotRowCache();
  let reads = 0;
  let stored = 1;
  const read = () => {
    reads++;
    return new Uint8Array([stored]);
  };
  const h1 = new Uint8Array(32).fill(1);
  cache.atHead(5, h1);
  assert.deepEqual(cache.row(key(1, 7), read), new Uint8Array([1]));
  assert.deepEqual(cache.row(key(1, 7), read), new Uint8Array([1]));
  assert.equal(reads, 1, "the second read is served from memory");
  // A copy of the same head (the hash read again from the store) keeps the entries.
  cache.atHead(5, h1.slice());
  cache.row(key(1, 7), read);
  assert.equal(reads, 1);
  // The same number with another hash (a rewound and rebuilt chain) starts over.
  stored = 2;
  cache.atHead(5, new Uint8Array(32).fill(2));
  assert.deepEqual(cache.row(key(1, 7), read), new Uint8Array([2]));
  assert.equal(reads, 2);
  stored = 3;
  cache.atHead(6, new Uint8Array(32).fill(3));
  assert.deepEqual(cache.row(key(1, 7), read), new Uint8Array([3]));
  assert.equal(reads, 3);
  // Keys that differ in one byte anywhere are different entries.
  for (let i = 0; i < 52; i++) {
    const k = key(1, 7);
    k[i] = k[i]! ^ 0x80;
    stored = 100 + i;
    assert.deepEqual(cache.row(k, read), new Uint8Array([100 + i]), `byte ${i}`);
  }
  assert.deepEqual(cache.row(key(1, 7), () => new Uint8Array([9])).length, 1);
});

test("slot row cache: without a head hash nothing is kept", () => {
  const cache = new SlotRowCache();
  let reads = 0;
  const read = () => {
    reads++;
    return new Uint8Array([1]);
  };
  cache.atHead(0, undefined);
  cache.row(key(2, 2), read);
  cache.row(key(2, 2), read);
  assert.equal(reads, 2);
});

test("slot row cache: many keys colliding in one place all read right", () => {
  const cache = new SlotRowCache();
  cache.atHead(1, new Uint8Array(32));
  // 200k keys over 131,072 places: collisions replace entries, never answer for another key.
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < 200_000; i++) {
      const v = cache.row(
        key(i % 7, i),
        () => new Uint8Array([i & 0xff, (i >> 8) & 0xff, i >> 16]),
      );
      assert.equal(v[0]! | (v[1]! << 8) | (v[2]! << 16), i);
    }
  }
  assert.ok(cache.hits > 0, "some entries survive the round");
});

test("slot row cache: the value is derived once per entry; a new head derives it again", () => {
  const cache = new SlotRowCache();
  cache.atHead(1, new Uint8Array(32));
  let derived = 0;
  const deriveValue = (row: Uint8Array) => {
    derived++;
    return row.length === 0 ? new Uint8Array(0) : row.slice(0, 1);
  };
  let reads = 0;
  const read =
    (bytes: number, fill = 7) =>
    () => {
      reads++;
      return bytes === 0 ? NO_ROW : new Uint8Array(bytes).fill(fill);
    };
  assert.deepEqual(cache.value(key(1, 1), read(6), deriveValue), new Uint8Array([7]));
  assert.deepEqual(cache.value(key(1, 1), read(6), deriveValue), new Uint8Array([7]));
  assert.deepEqual([reads, derived], [1, 1]);
  // A row read with row() first, then its value: derived once, from the kept row.
  assert.deepEqual(cache.row(key(1, 4), read(6, 4)), new Uint8Array(6).fill(4));
  assert.deepEqual(cache.value(key(1, 4), read(6), deriveValue), new Uint8Array([4]));
  assert.deepEqual([reads, derived], [2, 2]);
  // A slot never written is kept as NO_ROW.
  assert.equal(cache.row(key(1, 3), read(0)), NO_ROW);
  assert.equal(cache.row(key(1, 3), read(0)), NO_ROW);
  assert.equal(reads, 3);
  // A long row (past the arena's 192 bytes) comes back whole.
  assert.deepEqual(cache.row(key(1, 5), read(1500, 5)), new Uint8Array(1500).fill(5));
  assert.deepEqual(cache.row(key(1, 5), read(1500, 9)), new Uint8Array(1500).fill(5));
  assert.equal(reads, 4);
  // A new head: the old entries miss; the value is derived again from the new row.
  cache.atHead(2, new Uint8Array(32).fill(1));
  assert.deepEqual(cache.value(key(1, 1), read(3, 8), deriveValue), new Uint8Array([8]));
  assert.deepEqual([reads, derived], [5, 3]);
});

test("slot row cache: long rows are kept while their arena has room, until the next head", () => {
  const budget = 1024 * 1024;
  const cache = new SlotRowCache(budget);
  cache.atHead(1, new Uint8Array(32));
  const room = Math.floor((budget - slotRowCacheTableBytes(budget)) / 1000);
  assert.ok(room > 10 && room < 1000, `room for ${room} long rows`);
  let reads = 0;
  const read =
    (bytes: number, fill = 0) =>
    () => {
      reads++;
      return new Uint8Array(bytes).fill(fill);
    };
  // Slots 0..n differ in their low bytes: each has a place of its own.
  for (let i = 0; i < room + 20; i++) cache.row(key(1, i), read(1000, i & 0xff));
  reads = 0;
  for (let i = 0; i < room + 20; i++) {
    const row = cache.row(key(1, i), read(1000, i & 0xff));
    assert.equal(row.length, 1000);
    assert.equal(row[999], i & 0xff, `row ${i}`);
  }
  assert.equal(reads, 20, "the rows past the arena are read again");
  // Short rows live in their entries' places: they fit whatever the long rows took.
  for (let i = 0; i < 100; i++) cache.row(key(2, i), read(100));
  reads = 0;
  for (let i = 0; i < 100; i++) cache.row(key(2, i), read(100));
  assert.equal(reads, 0);
  // A new head empties the long-row arena: room again.
  cache.atHead(2, new Uint8Array(32).fill(2));
  for (let i = room; i < room + 20; i++) cache.row(key(1, i), read(1000));
  reads = 0;
  for (let i = room; i < room + 20; i++) cache.row(key(1, i), read(1000));
  assert.equal(reads, 0);
});

test("slot row cache: a budget of 0 keeps nothing", () => {
  const cache = new SlotRowCache(0);
  cache.atHead(1, new Uint8Array(32));
  let reads = 0;
  const read = () => {
    reads++;
    return new Uint8Array([1]);
  };
  cache.row(key(3, 3), read);
  cache.row(key(3, 3), read);
  assert.equal(reads, 2);
});

test("slot row cache: a row that does not fit never gives its value to the entry in its place", () => {
  const budget = 1024 * 1024;
  const cache = new SlotRowCache(budget);
  cache.atHead(1, new Uint8Array(32));
  const firstByte = (row: Uint8Array) => row.slice(0, 1);
  // Fill the long-row arena: the next long row is answered but not kept.
  const room = Math.floor((budget - slotRowCacheTableBytes(budget)) / 1000);
  for (let i = 0; i < room; i++) cache.row(key(5, 10_000 + i), () => new Uint8Array(1000));
  // Two keys in one place: their address bytes differ, and the slot makes up for it.
  const spread = (a: number) => Math.imul(a * 0x01010101, 0x85ebca6b);
  const mine = key(1, 7);
  const other = key(2, (7 ^ spread(1) ^ spread(2)) >>> 0);
  let reads = 0;
  const read = (row: Uint8Array) => () => {
    reads++;
    return row;
  };
  assert.deepEqual(cache.value(mine, read(new Uint8Array([1, 1])), firstByte), new Uint8Array([1]));
  // The other key's long row misses, is answered, and is not kept (no room).
  assert.deepEqual(
    cache.value(other, read(new Uint8Array(1000).fill(7)), firstByte),
    new Uint8Array([7]),
  );
  assert.equal(reads, 2);
  // The first key still answers its own value, from memory.
  assert.deepEqual(cache.value(mine, read(new Uint8Array([9])), firstByte), new Uint8Array([1]));
  assert.equal(reads, 2);
});
