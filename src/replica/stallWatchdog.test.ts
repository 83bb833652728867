// The watchdog on a fake clock: what it does at each step of time is asserted, not sampled
// over a wall-clock window.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setImmediate as settle } from "node:timers/promises";
import { FakeClock } from "../../test/utils/fakeClock.ts";
import type { NatsContext, NatsLink } from "./natsLink.ts";
import { watchForStall } from "./stallWatchdog.ts";

const STALL_MS = 20;

// The watchdog only asks the link for its current context; the context itself is opaque to it.
const linkWith = (connected: boolean): NatsLink =>
  ({ current: () => (connected ? ({} as NatsContext) : undefined) }) as unknown as NatsLink;

function watch(behind: () => Promise<boolean>, connected = true) {
  const clock = new FakeClock();
  let restarts = 0;
  let asked = 0;
  const w = watchForStall({
    link: linkWith(connected),
    stallMs: STALL_MS,
    behind: () => {
      asked++;
      return behind();
    },
    restart: () => restarts++,
    clock,
  });
  return {
    clock,
    w,
    /** Moves the clock by `ms`, then lets the answers of `behind` arrive. */
    async advance(ms: number) {
      clock.advance(ms);
      await settle();
    },
    get restarts() {
      return restarts;
    },
    get asked() {
      return asked;
    },
  };
}

test("a silent consumer is restarted when the stream has moved on, once per stall", async () => {
  const d = watch(async () => true);
  await d.advance(STALL_MS - 1);
  assert.equal(d.restarts, 0, "not before stallMs");
  await d.advance(1);
  assert.equal(d.restarts, 1);
  // The restart counts as seen: the next one comes a whole stall later, not at the next tick.
  await d.advance(STALL_MS - 1);
  assert.equal(d.restarts, 1);
  await d.advance(1);
  assert.equal(d.restarts, 2);
  d.w.stop();
  await d.advance(10 * STALL_MS);
  assert.equal(d.restarts, 2, "stopped");
});

test("a silent consumer is left alone when the stream has nothing newer", async () => {
  const d = watch(async () => false);
  await d.advance(10 * STALL_MS);
  assert.equal(d.asked, 10, "the stream was asked at every tick");
  assert.equal(d.restarts, 0);
  d.w.stop();
});

test("a silent consumer is restarted when the stream cannot say where it ends", async () => {
  const d = watch(async () => Promise.reject(new Error("timeout")));
  await d.advance(STALL_MS);
  assert.equal(d.restarts, 1);
  d.w.stop();
});

test("a consumer that keeps delivering is never restarted", async () => {
  const d = watch(async () => true);
  for (let t = 0; t < 10 * STALL_MS; t += 5) {
    await d.advance(5);
    d.w.seen();
  }
  assert.equal(d.asked, 0, "never silent for a whole stall");
  assert.equal(d.restarts, 0);
  // Once it goes quiet, it is restarted a stall later.
  await d.advance(STALL_MS);
  assert.equal(d.restarts, 1);
  d.w.stop();
});

test("nothing is restarted while disconnected (the reconnection restarts it)", async () => {
  const d = watch(async () => true, false);
  await d.advance(10 * STALL_MS);
  assert.equal(d.asked, 0);
  assert.equal(d.restarts, 0);
  d.w.stop();
});
