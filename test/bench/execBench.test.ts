// The arithmetic of `npm run bench:exec` and of the result guard, on made-up samples: the import's
// CPU from bash's `times`, the busiest worker thread between two /proc samples, medians and
// percentiles, and the first difference between a golden record and a run's.
import assert from "node:assert/strict";
import { test } from "node:test";
import { busiestWorker } from "../../bench/lib/cpuTime.ts";
import { childrenCpuSeconds } from "../../bench/lib/execNodes.ts";
import { median, percentile } from "../../bench/lib/execReport.ts";
import { firstDifference } from "../utils/execGolden.ts";

test("times: the children's line (the second) is user + system of the import", () => {
  assert.equal(childrenCpuSeconds("0m0.010s 0m0.002s\n1m2.500s 0m0.250s\n"), 62.75);
  assert.equal(childrenCpuSeconds("0m0.010s 0m0.002s"), undefined, "no children's line");
  assert.equal(childrenCpuSeconds("imported 3 blocks"), undefined);
});

test("busiestWorker: the busiest thread other than the main one, and every thread's sum", () => {
  const before = {
    pid: 10,
    byThread: new Map([
      [10, 0],
      [11, 5e8],
      [12, 0],
    ]),
  };
  // The main thread (10) ran most, thread 13 started in the window.
  const after = {
    pid: 10,
    byThread: new Map([
      [10, 3e9],
      [11, 1.5e9],
      [12, 2e8],
      [13, 1.2e9],
    ]),
  };
  assert.deepEqual(busiestWorker(before, after), { tid: 13, seconds: 1.2, allSeconds: 5.4 });
});

test("median and nearest-rank percentiles", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([])));
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i);
  assert.equal(percentile(hundred, 0.5), 50);
  assert.equal(percentile(hundred, 0.99), 99);
});

test("firstDifference: the path of the first differing value, missing and unexpected keys", () => {
  const golden = { block: 3, receipts: [{ status: "0x1", logs: [{ data: "0x01" }] }] };
  assert.equal(firstDifference(golden, structuredClone(golden)), undefined);
  assert.equal(
    firstDifference(golden, { block: 3, receipts: [{ status: "0x1", logs: [{ data: "0x02" }] }] }),
    '.receipts[0].logs[0].data: expected "0x01", got "0x02"',
  );
  assert.equal(
    firstDifference(golden, { block: 3, receipts: [] }),
    '.receipts[0]: expected {"status":"0x1","logs":[{"data":"0x01"}]}, missing',
  );
  assert.equal(
    firstDifference({ a: 1 }, { a: 1, b: 2 }, "block 1"),
    "block 1.b: not expected, got 2",
  );
});
