// The unreachable-NATS schedule on a fake clock: the warning at 2 s exactly (what the roles'
// end-to-end test cannot time on a loaded machine), repeated while it lasts, never once back.
import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeClock } from "../../test/utils/fakeClock.ts";
import { UNREACHABLE_REPEAT_MS, UNREACHABLE_WARN_MS, watchDown } from "./downWatch.ts";

function watch() {
  const clock = new FakeClock();
  const warnings: number[] = [];
  const w = watchDown({ where: "nats://x:4222", warn: (s) => warnings.push(s), clock });
  return { clock, warnings, w };
}

test("out of reach: a warning at 2 s saying so, again every 10 s while it lasts", () => {
  const { clock, warnings, w } = watch();
  w.down();
  clock.advance(UNREACHABLE_WARN_MS - 1);
  assert.deepEqual(warnings, [], "not before 2 s");
  assert.equal(w.reason(), undefined, "/readyz: a moment out of reach is no reason yet");
  clock.advance(1);
  assert.deepEqual(warnings, [2]);
  assert.equal(w.reason(), "NATS at nats://x:4222 unreachable for 2 s");
  clock.advance(UNREACHABLE_REPEAT_MS);
  assert.deepEqual(warnings, [2, 12]);
  clock.advance(UNREACHABLE_REPEAT_MS);
  assert.deepEqual(warnings, [2, 12, 22]);
  w.stop();
});

test("back before 2 s: no warning; out again: counted from then", () => {
  const { clock, warnings, w } = watch();
  w.down();
  clock.advance(1_500);
  w.up();
  clock.advance(60_000);
  assert.deepEqual(warnings, []);
  assert.equal(w.reason(), undefined);
  w.down();
  w.down(); // a second disconnection event while out of reach changes nothing
  clock.advance(UNREACHABLE_WARN_MS);
  assert.deepEqual(warnings, [2]);
  w.up();
  clock.advance(60_000);
  assert.deepEqual(warnings, [2], "nothing more once back");
  w.stop();
});

test("stopped: nothing more is said", () => {
  const { clock, warnings, w } = watch();
  w.down();
  w.stop();
  clock.advance(60_000);
  assert.deepEqual(warnings, []);
  assert.equal(w.reason(), undefined);
});
