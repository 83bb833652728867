import assert from "node:assert/strict";
import { test } from "node:test";
import { DevClock, DevState, MAX_TIMESTAMP } from "./devState.ts";

const now = () => BigInt(Math.floor(Date.now() / 1000));

test("the clock: offset, an exact next timestamp kept until its block seals (time goes on from it), always above the parent", () => {
  const clock = new DevClock();
  clock.offset = 3600n;
  const t = clock.take(0n);
  assert.ok(t >= now() + 3600n - 1n && t <= now() + 3600n);
  const exact = now() + 100_000n;
  clock.next = exact;
  assert.equal(clock.take(0n), exact);
  // Reopened (a new time asked for the block being built): still the exact one, as on anvil.
  clock.offset += 60n;
  assert.equal(clock.take(0n), exact);
  clock.sealed();
  assert.equal(clock.next, undefined);
  assert.ok(clock.take(0n) >= now() + 99_999n, "later blocks go on from the exact timestamp");
  const parent = now() + 500_000n;
  assert.equal(clock.take(parent), parent + 1n);
});

test("the clock stops at the largest dev timestamp, however far it was moved", () => {
  const clock = new DevClock();
  clock.offset = (1n << 64n) - 2n;
  assert.equal(clock.take(0n), MAX_TIMESTAMP);
  clock.offset = 0n;
  assert.equal(clock.take(MAX_TIMESTAMP - 1n), MAX_TIMESTAMP);
  clock.next = MAX_TIMESTAMP - 5n;
  assert.equal(clock.take(0n), MAX_TIMESTAMP - 5n);
});

test("snapshots: ids never reused; a revert uses up the snapshot and every later one", () => {
  const dev = new DevState();
  const s = {
    head: 1,
    headHash: new Uint8Array(32),
    records: [],
    offset: 0n,
    next: undefined,
    nextBaseFee: undefined,
  };
  const ids = [dev.takeSnapshot(s), dev.takeSnapshot(s), dev.takeSnapshot(s)];
  assert.deepEqual(ids, [0n, 1n, 2n]);
  assert.notEqual(dev.takeBack(1n), undefined);
  assert.equal(dev.takeBack(2n), undefined);
  assert.equal(dev.takeBack(1n), undefined);
  assert.notEqual(dev.takeBack(0n), undefined);
  assert.equal(dev.takeSnapshot(s), 3n);
});

test("impersonation: by account, or every account", () => {
  const dev = new DevState();
  const a = new Uint8Array(20).fill(1);
  const b = new Uint8Array(20).fill(2);
  dev.impersonate(a, true);
  assert.equal(dev.isImpersonated(a), true);
  assert.equal(dev.isImpersonated(b), false);
  dev.autoImpersonate = true;
  assert.equal(dev.isImpersonated(b), true);
  dev.autoImpersonate = false;
  dev.impersonate(a, false);
  assert.equal(dev.isImpersonated(a), false);
  assert.deepEqual(dev.impersonatedAccounts(), []);
});
