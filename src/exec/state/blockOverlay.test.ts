import assert from "node:assert/strict";
import { test } from "node:test";
import { BlockOverlay } from "./blockOverlay.ts";

const A = new Uint8Array(20).fill(0xaa);
const v = (n: number) => Uint8Array.of(n);
const acct = (nonce: bigint) => ({ nonce, balance: 0n, codeHash: new Uint8Array(32) });

test("a revert undoes what ran since its checkpoint, newest first; a commit keeps it", () => {
  const o = new BlockOverlay();
  o.checkpoint();
  o.putSlot("a", A, "01", v(1));
  o.putAccount("a", A, acct(1n));
  o.checkpoint();
  o.putSlot("a", A, "01", v(2));
  o.putSlot("a", A, "02", v(3));
  o.putAccount("a", A, acct(2n));
  o.checkpoint();
  o.wipe("a", A);
  o.putSlot("a", A, "03", v(4));
  assert.equal(o.get("a")?.slots?.get("01"), undefined, "wiped");
  o.revert();
  assert.equal(o.get("a")?.wiped, false);
  assert.deepEqual(o.get("a")?.slots?.get("01"), v(2));
  assert.equal(o.get("a")?.slots?.has("03"), false);
  o.revert();
  assert.deepEqual(o.get("a")?.slots?.get("01"), v(1));
  assert.equal(o.get("a")?.slots?.has("02"), false);
  assert.equal(o.get("a")?.account?.nonce, 1n);
  o.commit();
  assert.equal(o.depth, 0);
  assert.equal(o.get("a")?.account?.nonce, 1n);
});

test("a nested commit hands its writes to the level below, which can still revert them", () => {
  const o = new BlockOverlay();
  o.checkpoint();
  o.checkpoint();
  o.putAccount("a", A, null);
  o.wipe("a", A);
  o.commit();
  assert.equal(o.get("a")?.account, null);
  o.revert();
  assert.equal(o.get("a")?.account, undefined);
  assert.equal(o.get("a")?.wiped, false);
  assert.equal(o.get("a")?.written, false, "a reverted record writes nothing");
});

test("the version changes with every write and revert, and only then", () => {
  const o = new BlockOverlay();
  const v0 = o.version;
  o.checkpoint();
  o.commit();
  assert.equal(o.version, v0);
  o.putSlot("a", A, "01", v(1));
  const v1 = o.version;
  assert.notEqual(v1, v0);
  o.checkpoint();
  o.revert();
  assert.notEqual(o.version, v1);
});
