import assert from "node:assert/strict";
import { test } from "node:test";
import { shardAppend } from "./historyShard.ts";
import { encodeSlotRow, slotRowRecent, slotRowValue } from "./slotRow.ts";

test("a row's value and pre-values are copies, also when the row is a Buffer (as LMDB returns it)", () => {
  const row = encodeSlotRow(
    Uint8Array.of(9, 9),
    [Uint8Array.of(1), Uint8Array.of(2, 2)],
    shardAppend(shardAppend(new Uint8Array(0), 3), 5),
    false,
  );
  // LMDB reads come back as Buffers over a buffer it reuses for the next read.
  const lmdbBuffer = Buffer.from(row);
  const value = slotRowValue(lmdbBuffer);
  const recent = slotRowRecent(lmdbBuffer, 1);
  lmdbBuffer.fill(0x7f);
  assert.deepEqual([...value], [9, 9]);
  assert.deepEqual([...recent], [2, 2]);
});
