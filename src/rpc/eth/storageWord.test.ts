import assert from "node:assert/strict";
import { test } from "node:test";
import { storageWord } from "./storageWord.ts";

test("storageWord pads a trimmed value to 32 bytes of lower-case hex", () => {
  assert.equal(storageWord(new Uint8Array(0)), `0x${"0".repeat(64)}`);
  assert.equal(storageWord(Uint8Array.of(0xab, 0x01)), `0x${"0".repeat(60)}ab01`);
  const full = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 250) & 0xff);
  assert.equal(storageWord(full), `0x${Buffer.from(full).toString("hex")}`);
  // The buffer is reused: a short value after a long one leaves no digits behind.
  assert.equal(storageWord(Uint8Array.of(0x7)), `0x${"0".repeat(63)}7`);
  const eight = Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8);
  assert.equal(storageWord(eight), `0x${"0".repeat(48)}0102030405060708`);
  assert.equal(storageWord(full), `0x${Buffer.from(full).toString("hex")}`);
  assert.throws(() => storageWord(new Uint8Array(33)), RangeError);
});
