import assert from "node:assert/strict";
import { test } from "node:test";
import { blockTimeUp, initialMining, withAutomine, withIntervalMining } from "./mining.ts";

test("start: --automine or --block-time 0 is automine, otherwise a block every block time", () => {
  assert.deepEqual(initialMining(true, 2000), { automine: true, intervalMs: undefined });
  assert.deepEqual(initialMining(false, 0), { automine: true, intervalMs: undefined });
  assert.deepEqual(initialMining(false, 2000), { automine: false, intervalMs: 2000 });
});

test("evm_setAutomine and evm_setIntervalMining switch as anvil's do", () => {
  const interval = initialMining(false, 2000);
  const auto = withAutomine(interval, true);
  assert.deepEqual(auto, { automine: true, intervalMs: undefined });
  // Off after automine: no mining at all; off while interval mining: unchanged.
  assert.deepEqual(withAutomine(auto, false), { automine: false, intervalMs: undefined });
  assert.equal(withAutomine(interval, false), interval);
  assert.deepEqual(withIntervalMining(5n), { automine: false, intervalMs: 5000 });
  assert.deepEqual(withIntervalMining(0n), { automine: false, intervalMs: undefined });
});

test("the block time counts from the block's opening, or from when interval mining began", () => {
  const mode = { automine: false, intervalMs: 1000 };
  assert.equal(blockTimeUp(mode, 850, 0, 0, 200), false);
  assert.equal(blockTimeUp(mode, 900, 0, 0, 200), true);
  // Switched on at 5000 for a block open since 0: a whole block time from the switch.
  assert.equal(blockTimeUp(mode, 5100, 0, 5000, 200), false);
  assert.equal(blockTimeUp(mode, 5900, 0, 5000, 200), true);
  assert.equal(blockTimeUp({ automine: true, intervalMs: undefined }, 1e9, 0, 0, 200), false);
  assert.equal(blockTimeUp({ automine: false, intervalMs: undefined }, 1e9, 0, 0, 200), false);
});
