import assert from "node:assert/strict";
import { test } from "node:test";
import { devNumberUpTo, parseDevBool, parseDevBytes, parseDevNumber } from "./devControl.ts";

test("dev numbers: JSON numbers, hex and decimal strings, as anvil takes them", () => {
  assert.equal(parseDevNumber(16), 16n);
  assert.equal(parseDevNumber("0x10"), 16n);
  assert.equal(parseDevNumber("16"), 16n);
  assert.equal(parseDevNumber(1e18), 10n ** 18n);
  assert.equal(parseDevNumber(`0x${"f".repeat(64)}`), (1n << 256n) - 1n);
  for (const bad of [-1, 1.5, "0x", "zz", "0x1g", "", null, true, [], `0x1${"0".repeat(64)}`])
    assert.throws(() => parseDevNumber(bad), /invalid number/, JSON.stringify(bad));
  assert.throws(() => devNumberUpTo(10n, "count")(11), /count 11 is above 10/);
  assert.equal(devNumberUpTo(10n, "count")("0xa"), 10n);
});

test("dev bytes: hex with or without 0x, even length; bools only as JSON bools", () => {
  assert.deepEqual([...parseDevBytes("0x6001")], [0x60, 0x01]);
  assert.deepEqual([...parseDevBytes("6001")], [0x60, 0x01]);
  assert.deepEqual([...parseDevBytes("0x")], []);
  for (const bad of ["0x601", "zz", 5, null])
    assert.throws(() => parseDevBytes(bad), /invalid bytes/);
  assert.equal(parseDevBool(true), true);
  assert.throws(() => parseDevBool("yes"), /invalid bool/);
});
