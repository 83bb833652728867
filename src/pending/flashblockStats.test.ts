import assert from "node:assert/strict";
import { test } from "node:test";
import { FlashblockStats } from "./flashblockStats.ts";

test("flashblock stats: live flashblocks are timed; caught-up ones are counted, not timed", () => {
  const stats = new FlashblockStats();
  const observed: number[] = [];
  stats.onRecord((_build, lag) => observed.push(lag));
  // A reader joining mid-block gets the block so far, published long before it started.
  stats.record(1, 1_000, 9_000, false);
  stats.record(1, 1_200, 9_001, false);
  // Then each new flashblock as the relay delivers it.
  stats.record(2, 9_100, 9_103);
  stats.record(3, 9_300, 9_302);
  assert.deepEqual(observed, [3, 2]);
  const s = stats.snapshot();
  assert.equal(s.count, 4);
  assert.deepEqual(s.visibleLagMs, [3, 2]);
  assert.deepEqual(s.buildMs, [2, 3]);
  // Publication intervals continue from the caught-up block's last flashblock.
  assert.deepEqual(s.intervalMs, [7_900, 200]);
  assert.equal(s.lastAppliedAt, 9_302);
});
