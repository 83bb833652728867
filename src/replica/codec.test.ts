// A stream message is the same bytes for the same values: the archive hands back a value as a
// Node Buffer or as a Uint8Array depending on when it is read, and followers that publish one
// stream must send a block's message identically whichever of them reads it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { deserialize } from "node:v8";
import { flashblock } from "../../test/utils/flashblockDiffs.ts";
import { decodeChainUpdate, encodeMessage, FORMAT } from "./codec.ts";

test("a Buffer and a Uint8Array of the same bytes make the same message", () => {
  const withSlot = (value: Uint8Array) =>
    encodeMessage(
      flashblock(3, 1, {
        accounts: [],
        storage: [[new Uint8Array(20).fill(1), new Uint8Array(32), value]],
        wiped: [],
        code: [],
      }),
    );
  const a = withSlot(Buffer.from([8, 221, 7]));
  const b = withSlot(new Uint8Array([8, 221, 7]));
  assert.deepEqual(Buffer.from(a), Buffer.from(b));
  const back = deserialize(a) as { diff: { storage: Array<[Uint8Array, Uint8Array, Uint8Array]> } };
  const value = back.diff.storage[0]![2];
  assert.equal(value.constructor, Uint8Array, "read back as a Uint8Array");
  assert.deepEqual([...value], [8, 221, 7]);
});

test("an update encoded reads back as it was", () => {
  const u = { ...flashblock(9, 2), position: 9 * 1024 + 2 };
  assert.deepEqual(decodeChainUpdate(encodeMessage(u), FORMAT), u);
});
