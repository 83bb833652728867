// The /flashblocks JSON is rendered where it is served: a reader process is handed the diff laid
// out, with the accounts the JSON lists, and renders the message its primary would.
import assert from "node:assert/strict";
import { test } from "node:test";
import { deserialize, serialize } from "node:v8";
import { flashblock, sentTransaction } from "../../test/utils/flashblockDiffs.ts";
import { hasWireJson, wireJsonOf } from "./flashblockWire.ts";
import type { FlashblockUpdate } from "./types.ts";
import { withLaidOutDiffs } from "./updateLayers.ts";

const sent = [sentTransaction(1), sentTransaction(2, 3)];
const u = flashblock(
  7,
  2,
  {
    accounts: [
      [new Uint8Array(20).fill(9), { nonce: 4n, balance: 10n ** 18n, codeHash: undefined }],
      [new Uint8Array(20).fill(3), undefined],
      [new Uint8Array(20).fill(5), { nonce: 0n, balance: 77n, codeHash: undefined }],
    ],
    storage: [[new Uint8Array(20).fill(5), new Uint8Array(32), new Uint8Array([1])]],
    wiped: [new Uint8Array(20).fill(5)],
    code: [],
  },
  sent,
);

test("a reader process renders the same /flashblocks JSON from the laid-out update", () => {
  const json = wireJsonOf(u)!;
  const balances = Object.keys(JSON.parse(json).metadata.new_account_balances);
  assert.deepEqual(balances, [
    `0x${"09".repeat(20)}`,
    `0x${"03".repeat(20)}`,
    `0x${"05".repeat(20)}`,
  ]);
  const crossed = deserialize(serialize(withLaidOutDiffs(u))) as FlashblockUpdate;
  assert.ok("layer" in crossed.diff && crossed.diff.layer.length > 0, "the diff laid out");
  assert.equal(crossed.wireJson, undefined, "no JSON crosses");
  assert.ok(hasWireJson(crossed));
  assert.equal(wireJsonOf(crossed), json);
});

test("an update without the wire ids has no wire message", () => {
  const { wire: _ids, ...none } = u;
  assert.equal(hasWireJson(none), false);
  assert.equal(wireJsonOf(none), undefined);
  const crossed = withLaidOutDiffs(none) as FlashblockUpdate;
  assert.equal("accounts" in crossed.diff, false, "no accounts sent for nothing to render");
});
