import assert from "node:assert/strict";
import { test } from "node:test";
import { shardAppend, shardAt, shardFirstAfter, shardLast, shardLength } from "./historyShard.ts";

test("history shards hold block numbers up to 2^48-1 in order and find the first after any block", () => {
  const numbers = [0, 1, 255, 65_536, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 3, 2 ** 48 - 1];
  let shard: Uint8Array | undefined;
  for (const n of numbers) shard = shardAppend(shard, n);
  assert.ok(shard !== undefined);
  assert.equal(shardLength(shard), numbers.length);
  assert.deepEqual(
    numbers.map((_, i) => shardAt(shard, i)),
    numbers,
  );
  assert.equal(shardLast(shard), 2 ** 48 - 1);
  assert.equal(shardFirstAfter(shard, -1), 0);
  assert.equal(shardFirstAfter(shard, 0), 1);
  assert.equal(shardFirstAfter(shard, 300), 65_536);
  assert.equal(shardFirstAfter(shard, 2 ** 32 - 1), 2 ** 32);
  assert.equal(shardFirstAfter(shard, 2 ** 48 - 1), undefined);
});
