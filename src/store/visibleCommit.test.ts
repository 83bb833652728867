import assert from "node:assert/strict";
import { test } from "node:test";
import { untilVisible } from "./visibleCommit.ts";

/** A promise and its settlers, settled by the test. */
function pending<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

test("untilVisible: the write's result as soon as its token reads back, while the flush goes on", async () => {
  const flush = pending<string>();
  const ran = pending<string>();
  let looks = 0;
  let seen = false;
  const answer = untilVisible({
    committed: flush.promise,
    ran: ran.promise,
    visible: () => {
      looks++;
      return seen;
    },
  });
  // Before the transaction's callback ran, nothing is looked up.
  await new Promise((r) => setImmediate(r));
  assert.equal(looks, 0);
  ran.resolve("result");
  // Committed but not visible yet: looked up again and again.
  while (looks < 3) await new Promise((r) => setImmediate(r));
  seen = true;
  // The flush never settles in this test: the answer must not wait for it.
  assert.equal(await answer, "result");
});

test("untilVisible: a write whose callback threw, or whose commit failed, rejects as lmdb's promise", async () => {
  const threw = pending<string>();
  const answer = untilVisible({
    committed: threw.promise,
    ran: pending<string>().promise,
    visible: () => true,
  });
  threw.reject(new Error("half-way"));
  await assert.rejects(answer, /half-way/);

  const failed = pending<string>();
  const ran = pending<string>();
  const late = untilVisible({ committed: failed.promise, ran: ran.promise, visible: () => false });
  ran.resolve("result");
  failed.reject(new Error("MDB_MAP_FULL"));
  await assert.rejects(late, /MDB_MAP_FULL/);
});

test("untilVisible: a commit that settles before its token is looked up answers as it settled", async () => {
  const ran = pending<number>();
  ran.resolve(7);
  assert.equal(
    await untilVisible({ committed: Promise.resolve(7), ran: ran.promise, visible: () => false }),
    7,
  );
});
