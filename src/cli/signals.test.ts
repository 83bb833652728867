import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { test } from "node:test";
import { FakeClock } from "../../test/utils/fakeClock.ts";
import { StopRequested } from "../util/errors.ts";
import { onStopSignals, STOP_DEADLINE_MS } from "./signals.ts";

function harness() {
  const source = new EventEmitter();
  const clock = new FakeClock();
  const calls: string[] = [];
  const signals = onStopSignals({
    source,
    clock,
    stop: (name) => calls.push(`stop ${name}`),
    force: (why) => calls.push(`force ${why}`),
  });
  return { source, clock, calls, signals };
}

test("the first signal stops (the stop signal aborted); a second one forces the exit", () => {
  const { source, calls, signals } = harness();
  assert.equal(signals.signal.aborted, false);
  source.emit("SIGTERM");
  assert.equal(signals.signal.aborted, true);
  assert.ok(signals.signal.reason instanceof StopRequested);
  assert.deepEqual(calls, ["stop SIGTERM"]);
  source.emit("SIGINT");
  assert.deepEqual(calls, ["stop SIGTERM", "force SIGINT again"]);
  // Forced once: a third signal finds the process on its way out.
  source.emit("SIGINT");
  assert.equal(calls.length, 2);
});

test("a stop unfinished at the deadline forces the exit, once", () => {
  const { source, clock, calls } = harness();
  source.emit("SIGINT");
  clock.advance(STOP_DEADLINE_MS - 1);
  assert.deepEqual(calls, ["stop SIGINT"]);
  clock.advance(1);
  assert.deepEqual(calls, ["stop SIGINT", "force shutdown unfinished after 4 s"]);
  source.emit("SIGTERM");
  assert.equal(calls.length, 2);
  // Within the rule's 5 s, with a second left for the exit itself.
  assert.ok(STOP_DEADLINE_MS <= 4_000);
});

test("no deadline before a signal; dispose gives the signals back", () => {
  const { source, clock, calls, signals } = harness();
  clock.advance(60_000);
  assert.deepEqual(calls, []);
  signals.dispose();
  assert.equal(source.listenerCount("SIGINT"), 0);
  assert.equal(source.listenerCount("SIGTERM"), 0);
});
