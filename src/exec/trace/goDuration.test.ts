import assert from "node:assert/strict";
import { test } from "node:test";
import { parseGoDuration } from "./goDuration.ts";

test("Go durations: units, fractions, signs, and time's error texts", () => {
  assert.equal(parseGoDuration("5s"), 5000);
  assert.equal(parseGoDuration("300ms"), 300);
  assert.equal(parseGoDuration("1.5h"), 5_400_000);
  assert.equal(parseGoDuration("2m30s"), 150_000);
  assert.equal(parseGoDuration("1500us"), 1.5);
  assert.equal(parseGoDuration("1µs"), 0.001);
  assert.equal(parseGoDuration("0"), 0);
  assert.equal(parseGoDuration("-1s"), -1000);
  assert.equal(parseGoDuration(".5s"), 500);
  const error = (s: string) => {
    try {
      parseGoDuration(s);
    } catch (e) {
      return (e as Error).message;
    }
    return undefined;
  };
  assert.equal(error(""), 'time: invalid duration ""');
  assert.equal(error("abc"), 'time: invalid duration "abc"');
  assert.equal(error("5"), 'time: missing unit in duration "5"');
  assert.equal(error("5x"), 'time: unknown unit "x" in duration "5x"');
  assert.equal(error("."), 'time: invalid duration "."');
  assert.equal(error("9999999999h"), 'time: invalid duration "9999999999h"');
});
