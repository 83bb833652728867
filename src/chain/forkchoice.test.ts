import assert from "node:assert/strict";
import { test } from "node:test";
import { storedForkchoice, trailingForkchoice } from "./forkchoice.ts";

test("stored forkchoice: each tag falls back to the head and never passes it", () => {
  const none = storedForkchoice(() => ({ safe: undefined, finalized: undefined }));
  assert.deepEqual(none(54), { safe: 54, finalized: 54 });
  const set = storedForkchoice(() => ({ safe: 40, finalized: 30 }));
  assert.deepEqual(set(54), { safe: 40, finalized: 30 });
  assert.deepEqual(set(35), { safe: 35, finalized: 30 }, "clamped to a lower head");
});

test("trailing forkchoice: fixed depths below the head, saturating at genesis", () => {
  const trail = trailingForkchoice(32, 64);
  assert.deepEqual(trail(0), { safe: 0, finalized: 0 });
  assert.deepEqual(trail(40), { safe: 8, finalized: 0 });
  assert.deepEqual(trail(1000), { safe: 968, finalized: 936 });
  assert.deepEqual(trailingForkchoice(0, 0)(7), { safe: 7, finalized: 7 });
  assert.throws(() => trailingForkchoice(10, 5), /finalized depth must be at least the safe depth/);
});
