// A stream message is the same bytes for the same values: the archive hands back a value as a
// Node Buffer or as a Uint8Array depending on when it is read, and followers that publish one
// stream must send a block's message identically whichever of them reads it. A flashblock
// update goes without the /flashblocks JSON, which the replica renders from it the same.
import assert from "node:assert/strict";
import { test } from "node:test";
import { deserialize, serialize } from "node:v8";
import { flashblock, sentTransaction } from "../../test/utils/flashblockDiffs.ts";
import { wireJsonOf } from "../pending/flashblockWire.ts";
import {
  decodeChainUpdate,
  encodeChainUpdate,
  FORMAT,
  FormatError,
  UPDATE_FORMAT,
} from "./codec.ts";

test("a Buffer and a Uint8Array of the same bytes make the same message", () => {
  const withSlot = (value: Uint8Array) =>
    encodeChainUpdate(
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
  assert.deepEqual(decodeChainUpdate(encodeChainUpdate(u), UPDATE_FORMAT), u);
});

/** A flashblock of 200 transfers with a log each, and the balances they changed. */
function busyFlashblock(index: number) {
  const sent = Array.from({ length: 200 }, (_, i) => sentTransaction(index * 1000 + i));
  return flashblock(
    12,
    index,
    {
      accounts: sent.map((s, i) => [
        s.receipt.from,
        { nonce: BigInt(i), balance: 10n ** 18n + BigInt(i), codeHash: undefined },
      ]),
      storage: [],
      wiped: [],
      code: [],
    },
    sent,
  );
}

test("a flashblock goes without its /flashblocks JSON, and the replica renders the same JSON", () => {
  for (const index of [0, 3]) {
    const u = busyFlashblock(index);
    // What the sequencer's own /flashblocks serves, rendered from the update it built.
    const served = wireJsonOf(u)!;
    assert.ok(served.length > 50_000, `${served.length} characters of JSON`);
    const bytes = encodeChainUpdate({ ...u, wireJson: served });
    assert.equal(Buffer.from(bytes).indexOf(served.slice(0, 200)), -1, "no JSON in the message");
    // The same update with the JSON in it, as the stream carried it before flashnode-v8/2.
    const withJson = serialize({ ...u, wireJson: served });
    assert.ok(bytes.length < withJson.length * 0.75, `${bytes.length} vs ${withJson.length} bytes`);
    const onReplica = decodeChainUpdate(bytes, UPDATE_FORMAT);
    assert.equal(onReplica.kind === "flashblock" && onReplica.wireJson, undefined);
    assert.equal(onReplica.kind === "flashblock" ? wireJsonOf(onReplica) : "", served);
  }
});

test("a seal's flashblock 0 goes without its JSON too", () => {
  const next = busyFlashblock(0);
  const served = wireJsonOf(next)!;
  const sealed = {
    kind: "sealed" as const,
    number: 11,
    hash: new Uint8Array(32).fill(9),
    next: { ...next, wireJson: served },
  };
  const back = decodeChainUpdate(encodeChainUpdate(sealed), UPDATE_FORMAT);
  assert.equal(back.kind, "sealed");
  if (back.kind !== "sealed") return;
  assert.equal(back.next.wireJson, undefined);
  assert.equal(wireJsonOf(back.next), served);
});

test("an update of the stream before flashnode-v8/2 is read, its JSON as it came", () => {
  const { wire: _ids, ...made } = flashblock(9, 1);
  const old = { ...made, wireJson: '{"index":1}' };
  const back = decodeChainUpdate(serialize(old), FORMAT);
  assert.equal(back.kind === "flashblock" ? wireJsonOf(back) : "", '{"index":1}');
});

test("a format this release does not read is refused with one line naming both", () => {
  const bytes = encodeChainUpdate(flashblock(9, 1));
  for (const format of ["flashnode-v8/3", undefined]) {
    assert.throws(
      () => decodeChainUpdate(bytes, format),
      (e: unknown) =>
        e instanceof FormatError &&
        e.code === "REPLICA_FORMAT" &&
        !e.message.includes("\n") &&
        e.message.includes(`format ${format ?? "(none)"}`) &&
        e.message.includes(UPDATE_FORMAT),
    );
  }
});
