// SIGTERM and SIGINT stop a follower within 5 s whatever its upstream does (issue 30 item 9): a
// follower whose upstream was paused took ~10 s to exit, its stop waiting on an upstream call
// that could not end, then on the 10-s deadline of its thread.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { after, before, test } from "node:test";
import { freePort } from "../../bench/compare/peers.ts";
import { tempDatadir } from "../utils/fixtures.ts";
import { head, readyz, startFollower, startSequencer, until } from "../utils/followProcesses.ts";
import { type RpcProcess, stopChild } from "../utils/processes.ts";

const STOP_MS = 5_000;
const port = await freePort();
const sequencerDir = tempDatadir("shutdown-sequencer");
let sequencer: RpcProcess;

before(async () => {
  sequencer = await startSequencer({ datadir: sequencerDir, port });
  await until(
    "the sequencer's second block",
    () => head(sequencer.url),
    (n) => n >= 2,
  );
});

after(async () => {
  sequencer?.child.kill("SIGCONT");
  await stopChild(sequencer?.child);
});

/** A follower that has the sequencer's head and is ready. */
async function following(): Promise<RpcProcess> {
  const follower = await startFollower({
    datadir: tempDatadir("shutdown-follower"),
    upstreamPort: port,
  });
  const theirs = await head(sequencer.url);
  await until(
    "the follower at the sequencer's head",
    () => head(follower.url),
    (n) => n >= theirs,
  );
  await until(
    "the follower ready",
    () => readyz(follower),
    (r) => r.ready,
  );
  return follower;
}

/** Signals the process and measures how long it takes to exit, and with which code. */
async function stopTimed(child: ChildProcess, signal: NodeJS.Signals) {
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  const started = performance.now();
  child.kill(signal);
  const [code] = await exited;
  return { code, ms: performance.now() - started };
}

test("SIGTERM stops a follower within 5 s while its upstream is paused", async () => {
  const follower = await following();
  try {
    sequencer.child.kill("SIGSTOP");
    // The follower's calls and its stream now wait on an upstream that does not answer.
    await until(
      "the follower not ready",
      () => readyz(follower),
      (r) => !r.ready,
    );
    const { code, ms } = await stopTimed(follower.child, "SIGTERM");
    assert.equal(code, 0, follower.output());
    assert.ok(ms < STOP_MS, `exited ${Math.round(ms)} ms after SIGTERM (at most ${STOP_MS})`);
  } finally {
    sequencer.child.kill("SIGCONT");
    await stopChild(follower.child, "SIGKILL");
  }
});

test("SIGINT stops a follower within 5 s while its upstream is gone", async () => {
  const follower = await following();
  try {
    await stopChild(sequencer.child, "SIGKILL");
    // Its calls are retried and its stream dialled again, on a refused port.
    await until(
      "the follower to find the upstream gone",
      () => readyz(follower),
      (r) => r.reasons.some((reason) => /ECONNREFUSED/.test(reason)),
    );
    const { code, ms } = await stopTimed(follower.child, "SIGINT");
    assert.equal(code, 0, follower.output());
    assert.ok(ms < STOP_MS, `exited ${Math.round(ms)} ms after SIGINT (at most ${STOP_MS})`);
  } finally {
    await stopChild(follower.child, "SIGKILL");
  }
});
