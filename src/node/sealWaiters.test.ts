import assert from "node:assert/strict";
import { test } from "node:test";
import { SealWaiters } from "./sealWaiters.ts";

test("a wait settles true when the head reaches its block, false at its deadline", async () => {
  let head = 3;
  const seals = new SealWaiters(() => head);
  assert.equal(await seals.wait(3, 0), true, "already sealed: at once");
  assert.equal(await seals.wait(4, 0), false, "no time left");
  const five = seals.wait(5, 5_000);
  const six = seals.wait(6, 20);
  head = 4;
  seals.sealed(4);
  head = 5;
  seals.sealed(5);
  assert.equal(await five, true);
  assert.equal(await six, false, "block 6 never sealed within 20 ms");
});
