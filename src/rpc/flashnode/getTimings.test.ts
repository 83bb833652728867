import assert from "node:assert/strict";
import { test } from "node:test";
import {
  callMethods,
  oneBlockTimeline,
  testFlashblock,
} from "../../../test/utils/flashnodeTimeline.ts";
import { getTimings } from "./getTimings.ts";

test("flashnode_getTimings: latency and interval samples, blocks with their flashblocks", async () => {
  const timeline = oneBlockTimeline();
  timeline.flashblock(testFlashblock(7, 2, 10_400, [], 61_000n));
  const call = callMethods({ flashnode_getTimings: getTimings({ timeline }, () => 10_500) });
  assert.deepEqual((await call("flashnode_getTimings", [])).result, {
    live: true,
    now: 10_500,
    windowMs: 60_000,
    keptTransactions: 10_000,
    preconfirmLatency: [[10_200, 87.5, `0x${"22".repeat(32)}`]],
    flashblockInterval: [[10_400, 200]],
    blocks: [
      {
        number: "0x7",
        hash: null,
        sealedAt: null,
        transactions: 2,
        flashblockCount: 3,
        flashblocks: [
          { index: 0, transactions: 1, deposits: 1, gasUsed: "0x9c40", publishedAt: 10_000 },
          { index: 1, transactions: 1, deposits: 0, gasUsed: "0xee48", publishedAt: 10_200 },
          { index: 2, transactions: 0, deposits: 0, gasUsed: "0xee48", publishedAt: 10_400 },
        ],
      },
    ],
  });
  // Only what was published after `since`.
  const later = (await call("flashnode_getTimings", [10_200])).result as Record<string, unknown>;
  assert.deepEqual(later.preconfirmLatency, []);
  assert.deepEqual(later.flashblockInterval, [[10_400, 200]]);
});

test("flashnode_getTimings: a node without a flashblocks stream says so; bad `since` is refused", async () => {
  const call = callMethods({ flashnode_getTimings: getTimings({}, () => 5) });
  assert.deepEqual((await call("flashnode_getTimings", [])).result, {
    live: false,
    now: 5,
    windowMs: 0,
    keptTransactions: 0,
    preconfirmLatency: [],
    flashblockInterval: [],
    blocks: [],
  });
  assert.deepEqual((await call("flashnode_getTimings", ["0x10"])).error, {
    code: -32602,
    message: "invalid argument 0: json: cannot unmarshal string into Go value of type float64",
  });
});
