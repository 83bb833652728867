import assert from "node:assert/strict";
import { test } from "node:test";
import { progressPrinter } from "./importCommand.ts";

function capture(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, stream: { isTTY, write: (t: string) => writes.push(t) } };
}

const step = (number: number) => ({
  number,
  last: 54,
  gas: 2_000_000n * BigInt(number),
  elapsedMs: 1000,
});

test("on a terminal: one bar redrawn in place, ended by a newline at the last block", () => {
  const { writes, stream } = capture(true);
  const print = progressPrinter(1000, stream);
  print(step(27));
  for (let n = 28; n < 54; n++) print(step(n)); // within 100 ms of the first: not redrawn
  print(step(54));
  assert.equal(writes.length, 2);
  assert.equal(writes[0], `\r[${"#".repeat(15)}${" ".repeat(15)}] block 27/54  54.0 Mgas/s`);
  assert.equal(writes[1], `\r[${"#".repeat(30)}] block 54/54  108.0 Mgas/s\n`);
});

test("without a terminal: plain lines, at most one per interval, and always the last", () => {
  const { writes, stream } = capture(false);
  const print = progressPrinter(60_000, stream);
  for (let n = 1; n <= 54; n++) print(step(n));
  assert.deepEqual(writes, [
    "imported block 1/54 (2.0 Mgas/s)\n",
    "imported block 54/54 (108.0 Mgas/s)\n",
  ]);
  const every = capture(false);
  const all = progressPrinter(0, every.stream);
  for (let n = 1; n <= 54; n++) all(step(n));
  assert.equal(every.writes.length, 54, "--progress-interval 0: every block");
});
