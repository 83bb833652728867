import assert from "node:assert/strict";
import { test } from "node:test";
import { calcGasLimit } from "./gasLimit.ts";

test("calcGasLimit: the target when the parent has it, else one bounded step towards it (geth)", () => {
  assert.equal(calcGasLimit(60_000_000n, 60_000_000n), 60_000_000n);
  // The fixture chain's head (200M) under geth's default 60M ceiling: testing_buildBlockV1's block.
  assert.equal(calcGasLimit(200_000_000n, 60_000_000n), 0xbe8c711n);
  assert.equal(calcGasLimit(30_000_000n, 60_000_000n), 30_000_000n + 30_000_000n / 1024n - 1n);
  // Within one step: exactly the target.
  assert.equal(calcGasLimit(60_000_000n, 60_010_000n), 60_010_000n);
  assert.equal(calcGasLimit(60_010_000n, 60_000_000n), 60_000_000n);
  // Below geth's floor of 5000 the target is the floor.
  assert.equal(calcGasLimit(10_000n, 1n), 9992n);
  assert.equal(calcGasLimit(5003n, 1n), 5000n);
});
