import assert from "node:assert/strict";
import { test } from "node:test";
import { perRun } from "./perRun.ts";

test("perRun reads once per synchronous run, again after the microtask checkpoint or a new version", async () => {
  let reads = 0;
  let version = 0;
  const value = perRun(
    () => ++reads,
    () => version,
  );
  assert.deepEqual([value(), value(), value()], [1, 1, 1]);
  version++;
  assert.equal(value(), 2, "a new version reads again within the run");
  assert.equal(value(), 2);
  await Promise.resolve();
  assert.equal(value(), 3, "the next run reads again");
  assert.equal(reads, 3);
});
