import assert from "node:assert/strict";
import { test } from "node:test";
import { SoonFlushes, untilVisible } from "./visibleCommit.ts";

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

test("SoonFlushes: a flush failing after its write was answered is thrown once, by the next write or by close", async () => {
  const flushes = new SoonFlushes();
  // Failing before the answer: the write itself rejects with it (untilVisible), nothing is kept.
  const early = pending<void>();
  flushes.watch(early.promise, () => false);
  early.reject(new Error("refused before the answer"));
  await flushes.settle();

  const late = pending<void>();
  flushes.watch(late.promise, () => true);
  flushes.throwFailed();
  late.reject(new Error("EIO on fsync"));
  await new Promise((r) => setImmediate(r));
  assert.throws(() => flushes.throwFailed(), /EIO on fsync/);
  flushes.throwFailed();

  // close(): waits for the flush under way, then throws its failure.
  const closing = pending<void>();
  flushes.watch(closing.promise, () => true);
  let settled = false;
  const settle = flushes.settle().finally(() => {
    settled = true;
  });
  await new Promise((r) => setImmediate(r));
  assert.equal(settled, false, "close waits for the flush under way");
  closing.reject(new Error("ENOSPC"));
  await assert.rejects(settle, /ENOSPC/);
  await flushes.settle();
});
