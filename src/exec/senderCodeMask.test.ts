import assert from "node:assert/strict";
import { test } from "node:test";
import { Account, Address, equalsBytes, KECCAK256_NULL } from "@ethereumjs/util";
import { SenderCodeMask } from "./senderCodeMask.ts";

const sender = new Address(new Uint8Array(20).fill(1));
const other = new Address(new Uint8Array(20).fill(2));
const codeHash = new Uint8Array(32).fill(7);
const stored = () => new Account(7n, 10n ** 18n, undefined, codeHash);

test("hides only the masked sender's code, and keeps its nonce and balance", () => {
  const mask = new SenderCodeMask();
  assert.equal(equalsBytes(mask.view(sender, stored())!.codeHash, codeHash), true);
  mask.set(sender);
  const seen = mask.view(sender, stored())!;
  assert.equal(equalsBytes(seen.codeHash, KECCAK256_NULL), true);
  assert.equal(seen.nonce, 7n);
  assert.equal(seen.balance, 10n ** 18n);
  assert.equal(equalsBytes(mask.view(other, stored())!.codeHash, codeHash), true);
  assert.equal(mask.view(sender, undefined), undefined);
  assert.equal(mask.covers(sender), true);
  assert.equal(mask.covers(other), false);
});

test("a write that keeps the nonce (the OP L1 fee) keeps the mask and the real code hash", () => {
  const mask = new SenderCodeMask();
  mask.set(sender);
  const charged = mask.view(sender, stored())!;
  charged.balance -= 5n;
  mask.beforeWrite(charged, stored());
  assert.equal(equalsBytes(charged.codeHash, codeHash), true, "the write keeps the code");
  assert.equal(mask.covers(sender), true, "the transaction's own check is still ahead");
  // runTx's own write bumps the nonce: the mask ends there, and the code stays.
  const bumped = mask.view(sender, charged)!;
  bumped.nonce += 1n;
  mask.beforeWrite(bumped, charged);
  assert.equal(equalsBytes(bumped.codeHash, codeHash), true);
  assert.equal(mask.covers(sender), false);
  assert.equal(equalsBytes(mask.view(sender, stored())!.codeHash, codeHash), true);
});

test("a deletion ends the mask; set(undefined) ends it", () => {
  const mask = new SenderCodeMask();
  mask.set(sender);
  mask.beforeWrite(undefined, stored());
  assert.equal(mask.covers(sender), false);
  mask.set(sender);
  mask.set(undefined);
  assert.equal(mask.covers(sender), false);
});
