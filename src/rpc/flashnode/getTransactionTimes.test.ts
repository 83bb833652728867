import assert from "node:assert/strict";
import { test } from "node:test";
import { callMethods, oneBlockTimeline } from "../../../test/utils/flashnodeTimeline.ts";
import { getTransactionTimes } from "./getTransactionTimes.ts";

const USER = `0x${"22".repeat(32)}`;
const DEPOSIT = `0x${"11".repeat(32)}`;

test("flashnode_getTransactionTimes: intake, pre-confirmation, seal; null when not kept", async () => {
  const timeline = oneBlockTimeline();
  const call = callMethods({ flashnode_getTransactionTimes: getTransactionTimes({ timeline }) });
  assert.deepEqual((await call("flashnode_getTransactionTimes", [USER])).result, {
    hash: USER,
    blockNumber: "0x7",
    blockHash: null,
    transactionIndex: "0x1",
    flashblockIndex: 1,
    deposit: false,
    receivedAt: 10_112.5,
    preconfirmedAt: 10_200,
    sealedAt: null,
    preconfirmLatencyMs: 87.5,
  });
  timeline.sealed(7, new Uint8Array(32).fill(0xbb), 11_990.06);
  const sealed = (await call("flashnode_getTransactionTimes", [USER])).result as Record<
    string,
    unknown
  >;
  assert.equal(sealed.sealedAt, 11_990.1);
  assert.equal(sealed.blockHash, `0x${"bb".repeat(32)}`);
  const deposit = (await call("flashnode_getTransactionTimes", [DEPOSIT])).result as Record<
    string,
    unknown
  >;
  assert.equal(deposit.deposit, true);
  assert.equal(deposit.receivedAt, null);
  assert.equal(deposit.preconfirmLatencyMs, null);
  assert.equal(
    (await call("flashnode_getTransactionTimes", [`0x${"33".repeat(32)}`])).result,
    null,
  );
  // serve: no timeline at all.
  const none = callMethods({ flashnode_getTransactionTimes: getTransactionTimes({}) });
  assert.equal((await none("flashnode_getTransactionTimes", [USER])).result, null);
});

test("flashnode_getTransactionTimes: a bad hash gets geth's error", async () => {
  const call = callMethods({ flashnode_getTransactionTimes: getTransactionTimes({}) });
  assert.deepEqual((await call("flashnode_getTransactionTimes", ["0x12"])).error, {
    code: -32602,
    message: "invalid argument 0: hex string has length 2, want 64 for common.Hash",
  });
  assert.deepEqual((await call("flashnode_getTransactionTimes", [])).error, {
    code: -32602,
    message: "missing value for required argument 0",
  });
});
