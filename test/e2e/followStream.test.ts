// The follower's flashblocks stream keeps a read deadline and ping/pong liveness (optimism#22816:
// a silent stream froze pending for 16 days). A stream that goes silent and answers no pings is
// cut after --stream-read-timeout and dialled again; one that talks but answers no pings is cut
// too. Neither drops what is pre-confirmed, and the block goes on over the new connection.
// The source answers pings only while the test lets it, and keeps the stream talking with
// flashblocks of a long-sealed block (the follower ignores them) until the test falls silent.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { FollowHarness } from "../utils/followHarness.ts";

const CAROL = "0x00000000000000000000000000000000000c0a01";
/** The follower's read deadline here; its pings go every second, a pong is due within this. */
const READ_TIMEOUT_MS = 1_500;
const HEARTBEAT_MS = 100;
let h: FollowHarness;
/** Whether the source takes the follower's dials (false: refused with HTTP 503). */
let accepting = true;

before(async () => {
  h = await FollowHarness.start({
    label: "follow-stream",
    streamReadTimeoutMs: READ_TIMEOUT_MS,
    source: { autoPong: false, accept: () => accepting },
    heartbeatMs: HEARTBEAT_MS,
  });
});

after(async () => {
  await h?.close();
});

/** Waits for the follower to open another connection than the `count` it had. */
async function redialled(count: number): Promise<void> {
  await h.until(
    "the follower to dial again",
    async () => h.connections.length,
    (n) => n > count,
  );
}

test("a silent stream that answers no pings is cut at its read deadline and dialled again", async () => {
  const { seq, send } = h;
  const plan = await seq.plan();
  const a = await seq.transfer(1, CAROL, 1n);
  await seq.flashblock(plan, 0, [a], send);
  await h.pendingHolds("flashblock 0", [a.hash]);
  const before = await h.events();
  const count = h.connections.length;
  h.answerPings = false;
  h.heartbeat(undefined);
  try {
    await redialled(count);
    await h.event(before, "streamReadTimeouts");
    await h.event(before, "streamReconnects");
  } finally {
    h.answerPings = true;
    h.heartbeat(HEARTBEAT_MS);
  }
  assert.deepEqual(await h.pendingReceiptHashes(), [a.hash], "a cut keeps what is pre-confirmed");
  const b = await seq.transfer(2, CAROL, 2n);
  await seq.flashblock(plan, 1, [b], send);
  await h.pendingHolds("flashblock 1 over the new connection", [a.hash, b.hash]);
  await seq.mine(plan);
  await h.headIs(plan.number);
});

test("a stream that talks but answers no pings is cut when a pong is overdue", async () => {
  const { seq, send } = h;
  const plan = await seq.plan();
  const a = await seq.transfer(1, CAROL, 1n);
  await seq.flashblock(plan, 0, [a], send);
  await h.pendingHolds("flashblock 0", [a.hash]);
  const before = await h.events();
  const count = h.connections.length;
  h.answerPings = false;
  try {
    await redialled(count);
    await h.event(before, "streamPingsMissed");
  } finally {
    h.answerPings = true;
  }
  assert.equal(
    (await h.events()).streamReadTimeouts ?? 0,
    before.streamReadTimeouts ?? 0,
    "frames kept coming",
  );
  assert.deepEqual(await h.pendingReceiptHashes(), [a.hash]);
  const b = await seq.transfer(2, CAROL, 2n);
  await seq.flashblock(plan, 1, [b], send);
  await h.pendingHolds("flashblock 1 over the new connection", [a.hash, b.hash]);
  await seq.mine(plan);
  await h.headIs(plan.number);
});

// The stream's own series (issue 30: metrics for the follower's stream).
test("/metrics shows the stream: connected, its frames, invalid ones, and its connects and disconnects by reason", async () => {
  const series = (m: Map<string, number>, name: string) => m.get(`flashnode_follow_stream_${name}`);
  const until = (what: string, done: (m: Map<string, number>) => boolean) =>
    h.until(what, () => h.metrics(), done);
  const before = await until("the stream connected", (m) => series(m, "connected") === 1);
  const at = (name: string) => series(before, name) ?? Number.NaN;
  assert.ok(at("connects_total") >= 1);
  const age = at("last_frame_age_seconds");
  assert.ok(age >= 0 && age < 5, `a frame came lately (${age} s ago)`);

  await h.send("{not json");
  await until(
    "the invalid frame counted",
    (m) =>
      series(m, "invalid_frames_total") === at("invalid_frames_total") + 1 &&
      series(m, "frames_total")! > at("frames_total"),
  );

  // The endpoint cut the connection and refuses the dials that follow, for a while.
  const cut = (m: Map<string, number>) =>
    (series(m, 'disconnects_total{reason="remote-close"}') ?? 0) +
    (series(m, 'disconnects_total{reason="error"}') ?? 0);
  const refused = 'disconnects_total{reason="connect-failed"}';
  accepting = false;
  h.ws.terminate();
  const down = await until(
    "the stream down, its dials refused",
    (m) => series(m, "connected") === 0 && series(m, refused)! >= at(refused) + 2,
  );
  assert.equal(cut(down), cut(before) + 1, "one connection cut");
  accepting = true;
  const back = await until("the stream connected again", (m) => series(m, "connected") === 1);
  assert.equal(series(back, "connects_total"), at("connects_total") + 1);
  assert.ok(series(back, "reconnects_total")! >= at("reconnects_total") + 3);
});
