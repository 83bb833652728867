import assert from "node:assert/strict";
import { test } from "node:test";
import { IntakeTimes } from "./intakeTimes.ts";

test("intake times are taken once and pruned to what the pool holds", () => {
  const times = new IntakeTimes();
  times.set("0xaa", 1);
  times.set("0xbb", 2);
  times.set("0xcc", 3);
  assert.equal(times.take("0xaa"), 1);
  assert.equal(times.take("0xaa"), undefined, "forgotten once taken");
  times.prune((hash) => hash === "0xcc");
  assert.equal(times.size, 1);
  assert.equal(times.take("0xcc"), 3);
  assert.equal(times.take("0xbb"), undefined);
});
