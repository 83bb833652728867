// Chaos for a follower (issue 30): a `flashnode follow` of a `flashnode dev` sequencer (2-s
// blocks of 200-ms flashblocks, as Base's), both processes as users run them, while transactions
// flow to the sequencer. The sequencer is paused (SIGSTOP) for 20 s and resumed, then killed
// (SIGKILL) and restarted on its datadir, twice. Each time: /readyz says the follower is not
// ready while its upstream is away, the follower has the sequencer's new blocks within 2 s of
// the sequencer making them, /readyz is ready again after; at the end nothing is lost or
// doubled: every block and its receipts are the sequencer's, every transaction in one block,
// and pending catches up.
import assert from "node:assert/strict";
import { after, before, type TestContext, test } from "node:test";
import { freePort } from "../../bench/compare/peers.ts";
import { call, tempDatadir } from "../utils/fixtures.ts";
import {
  assertSameChain,
  dedicated,
  head,
  readyz,
  startFollower,
  startSequencer,
  TxFlow,
  until,
} from "../utils/followProcesses.ts";
import { type RpcProcess, stopChild } from "../utils/processes.ts";

/** How long the sequencer is paused: the 20 s (the one fixed wait: it is the fault). */
const PAUSE_MS = 20_000;
/** The follower has the sequencer's blocks this soon after the sequencer has them again. */
const RESUME_MS = 2_000;

const port = await freePort();
const sequencerDir = tempDatadir("chaos-sequencer");
let sequencer: RpcProcess;
let follower: RpcProcess;
let flow: TxFlow;
/** The follower's base block: blocks above it are its own copies. */
let base: number;

before(async () => {
  sequencer = await startSequencer({ datadir: sequencerDir, port, blockTime: "2s" });
  // A few blocks first: the follower's base is the sequencer's head when it starts.
  await until(
    "the sequencer's third block",
    () => head(sequencer.url),
    (n) => n >= 3,
  );
  follower = await startFollower({ datadir: tempDatadir("chaos-follower"), upstreamPort: port });
  base = Number(/Following chain \d+ from block (\d+)/.exec(follower.output())?.[1]);
  assert.ok(base >= 3, follower.output());
  flow = new TxFlow(() => sequencer.url, Number(await call(sequencer.url, "eth_chainId")));
  await until(
    "transactions in the follower's blocks",
    () => head(follower.url),
    (n) => n > base,
  );
  await until(
    "the follower ready",
    () => readyz(follower),
    (r) => r.ready,
  );
});

after(async () => {
  await flow?.stop();
  if (sequencer !== undefined) {
    sequencer.child.kill("SIGCONT");
    await stopChild(sequencer.child);
  }
  await stopChild(follower?.child);
});

/**
 * The upstream is back (`returned` resolves once it answers): the sequencer makes a block past
 * `before`, and the follower has it within RESUME_MS; then the follower is ready again.
 */
async function blocksResume(
  t: TestContext,
  before: number,
  returned: Promise<unknown>,
): Promise<void> {
  await returned;
  let seen: { number: number; at: number } | undefined;
  await until(
    "the follower to have the sequencer's new block",
    async () => {
      const [theirs, ours] = await Promise.all([head(sequencer.url), head(follower.url)]);
      if (seen === undefined && theirs > before) seen = { number: theirs, at: Date.now() };
      return seen !== undefined && ours >= seen.number ? Date.now() - seen.at : undefined;
    },
    (lag) => lag !== undefined,
  );
  const lag = Date.now() - seen!.at;
  t.diagnostic(`the follower had block ${seen!.number} ${lag} ms after the sequencer`);
  assert.ok(
    lag <= RESUME_MS,
    `the follower had block ${seen!.number} ${lag} ms after the sequencer (at most ${RESUME_MS}), at ${new Date(seen!.at).toISOString()}; its log:\n${follower.output().split("\n").slice(-40).join("\n")}`,
  );
  await until(
    "the follower ready again",
    () => readyz(follower),
    (r) => r.ready,
    10_000,
  );
}

/**
 * Each fault starts with transactions flowing (five more sent since the last), from a follower
 * that has the sequencer's head: what is measured after it is how soon the follower is back, not
 * how far a loaded machine let it fall behind before.
 */
async function caughtUp(): Promise<number> {
  const sent = flow.accepted;
  await until(
    "transactions flowing",
    async () => flow.accepted,
    (n) => n >= sent + 5,
  );
  const theirs = await head(sequencer.url);
  await until(
    "the follower at the sequencer's head",
    () => head(follower.url),
    (n) => n >= theirs,
  );
  return head(sequencer.url);
}

/** /readyz says not ready while the upstream is away (within the stream's read deadline). */
async function notReadyWhileAway(why: string): Promise<void> {
  const r = await until(
    `/readyz not ready (${why})`,
    () => readyz(follower),
    (r) => !r.ready,
  );
  assert.ok(r.reasons.length > 0, JSON.stringify(r));
}

test("the sequencer paused for 20 s, then resumed", async (t) => {
  const before = await caughtUp();
  sequencer.child.kill("SIGSTOP");
  const resumeAt = Date.now() + PAUSE_MS;
  await notReadyWhileAway("sequencer paused");
  await new Promise((r) => setTimeout(r, Math.max(0, resumeAt - Date.now())));
  assert.equal((await readyz(follower)).ready, false, "still not ready at the end of the pause");
  sequencer.child.kill("SIGCONT");
  await blocksResume(
    t,
    before,
    until(
      "the sequencer to answer",
      () => head(sequencer.url),
      () => true,
    ),
  );
});

for (const round of [1, 2])
  test(`the sequencer killed and restarted on its datadir (${round} of 2)`, async (t) => {
    const before = await caughtUp();
    await stopChild(sequencer.child, "SIGKILL");
    await notReadyWhileAway(`sequencer killed, round ${round}`);
    const restarted = startSequencer({ datadir: sequencerDir, port, blockTime: "2s" });
    await blocksResume(
      t,
      before,
      restarted.then((p) => {
        sequencer = p;
      }),
    );
  });

test("nothing lost or doubled: blocks, receipts and transactions equal the sequencer's", async () => {
  await flow.stop();
  // What the sequencer holds of the flow (what a kill lost was sent again), all sealed.
  const count = (tag: string) => call(sequencer.url, "eth_getTransactionCount", [flow.sender, tag]);
  const held = Number(await count("pending"));
  await until(
    "the flow's transactions sealed",
    async () => Number(await count("latest")),
    (n) => n === held,
  );
  const tip = await head(sequencer.url);
  await until(
    "the follower at the sequencer's head",
    () => head(follower.url),
    (n) => n >= tip,
  );
  const seq = dedicated(sequencer);
  const fol = dedicated(follower);
  const included = new Set(await assertSameChain(seq, fol, base + 1, tip));
  for (const hash of flow.hashes.slice(0, held)) {
    assert.ok(included.has(hash), `${hash} in a block above the base`);
    assert.deepEqual(
      await call(fol, "eth_getTransactionReceipt", [hash]),
      await call(seq, "eth_getTransactionReceipt", [hash]),
    );
  }
  // Pending catches up: with transactions flowing again, the follower's pending block is the
  // sequencer's, receipts and all.
  const more = new TxFlow(() => sequencer.url, Number(await call(seq, "eth_chainId")));
  const pendingOf = async (url: string) => {
    const block = (await call(url, "eth_getBlockByNumber", ["pending", false])) as {
      number: string;
    };
    return { number: block.number, receipts: await call(url, "eth_getBlockReceipts", ["pending"]) };
  };
  try {
    await until(
      "the follower's pending block to be the sequencer's, with transactions",
      async () => [await pendingOf(seq), await pendingOf(fol)] as const,
      ([s, f]) => JSON.stringify(s) === JSON.stringify(f) && (f.receipts as unknown[]).length > 0,
    );
  } finally {
    await more.stop();
  }
});
