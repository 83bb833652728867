// Base's sequencing rules (issue 27 item 3) on a running follower, as a client sees them: its
// `pending` answers and the events at /metrics. The chain is anvil, mined by hand; the stream is
// the test's own sequencer (AnvilSequencer), which can lose, repeat and reorder flashblocks,
// and pre-confirm a transaction the chain then leaves out. A proxy in front of anvil holds the
// follower back where a rule is about the stream running ahead of the chain.
// Throughout: never a pending block with a hole; with nothing pre-confirmed, pending answers
// latest, never null or an error.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { AnvilSequencer } from "../utils/anvilFlashblocks.ts";
import { FollowHarness } from "../utils/followHarness.ts";

const CAROL = "0x00000000000000000000000000000000000c0a01";
const HOLDERS = [CAROL, ...[1, 2, 3, 4, 5].map(AnvilSequencer.address)];
let h: FollowHarness;

before(async () => {
  h = await FollowHarness.start({ label: "follow-rules" });
});

after(async () => {
  await h?.close();
});

/** The proxy answers eth_blockNumber with `number`: the follower sees no newer block. */
function holdHeadAt(number: number): void {
  h.proxy.intercept = (c) =>
    c.method === "eth_blockNumber" ? { result: `0x${number.toString(16)}` } : undefined;
}

function release(): void {
  h.proxy.intercept = undefined;
}

/** Waits until pending has fallen back to latest (its block is the head's). */
async function pendingFellBack(why: string): Promise<void> {
  await h.until(
    `pending to fall back to latest (${why})`,
    async () => [
      await h.rpc("eth_getBlockByNumber", ["pending", false]),
      await h.rpc("eth_getBlockByNumber", ["latest", false]),
    ],
    ([p, l]) => (p as { hash: string }).hash === (l as { hash: string }).hash,
  );
  await h.assertPendingIsLatest(HOLDERS, why);
}

test("a gap clears pending until the next index 0; what follows the hole is never applied", async () => {
  const { seq, send } = h;
  const plan = await seq.plan();
  const start = await h.balance(CAROL, "latest");
  const [a, b, c, d, e] = [
    await seq.transfer(1, CAROL, 1n),
    await seq.transfer(2, CAROL, 2n),
    await seq.transfer(3, CAROL, 4n),
    await seq.transfer(4, CAROL, 8n),
    await seq.transfer(5, CAROL, 16n),
  ];
  await seq.flashblock(plan, 0, [a!], send);
  await seq.flashblock(plan, 1, [b!], send);
  await h.pendingHolds("flashblocks 0 and 1", [a!.hash, b!.hash]);
  assert.equal(await h.balance(CAROL, "pending"), start + 3n);

  const before = await h.events();
  await seq.toPool([c!]); // flashblock 2 is lost on the way
  await seq.flashblock(plan, 3, [d!], send);
  await h.event(before, "gap");
  // Counted with everything before it: the follower reports its events in one snapshot.
  const atGap = await h.events();
  await pendingFellBack("after the gap");
  // The lost flashblock arrives late, and the build goes on: neither reopens the block.
  await seq.flashblock(plan, 2, [], send);
  await seq.flashblock(plan, 4, [e!], send);
  await h.event(before, "nonZeroFirst", 2);
  await h.assertPendingIsLatest(HOLDERS, "after flashblocks past the hole");
  assert.equal((await h.events()).applied, atGap.applied, "nothing applied since the gap");

  // The block lands with all five; the next block's index 0 pre-confirms again.
  await seq.mine(plan);
  await h.headIs(plan.number);
  assert.equal(await h.balance(CAROL, "latest"), start + 31n);
  const next = await seq.plan();
  const f = await seq.transfer(1, CAROL, 32n);
  await seq.flashblock(next, 0, [f], send);
  await h.pendingHolds("the next block's index 0", [f.hash]);
  assert.equal(await h.balance(CAROL, "pending"), start + 63n);
  await seq.mine(next);
  await h.headIs(next.number);
});

test("a duplicate is ignored: pending holds each transaction once", async () => {
  const { seq, send } = h;
  const plan = await seq.plan();
  const start = await h.balance(CAROL, "latest");
  const a = await seq.transfer(1, CAROL, 1n);
  const b = await seq.transfer(2, CAROL, 2n);
  const m0 = await seq.flashblock(plan, 0, [a], send);
  const m1 = await seq.flashblock(plan, 1, [b], send);
  await h.pendingHolds("flashblocks 0 and 1", [a.hash, b.hash]);
  const before = await h.events();
  await send(m1);
  await send(m0);
  await send(m1);
  await h.event(before, "duplicate", 3);
  assert.deepEqual(await h.pendingReceiptHashes(), [a.hash, b.hash]);
  assert.equal(await h.balance(CAROL, "pending"), start + 3n);
  const c = await seq.transfer(3, CAROL, 4n);
  await seq.flashblock(plan, 2, [c], send);
  await h.pendingHolds("flashblock 2 after the duplicates", [a.hash, b.hash, c.hash]);
  assert.equal(await h.balance(CAROL, "pending"), start + 7n);
  const counted = await h.events();
  await seq.mine(plan);
  await h.headIs(plan.number);
  await h.event(counted, "canonicalMatch");
});

test("a block whose first flashblock seen is not index 0 is not pre-confirmed", async () => {
  const { seq, send } = h;
  const plan = await seq.plan();
  const before = await h.events();
  // Index 0 never arrives (the follower joined mid-block, or lost it).
  await seq.toPool([await seq.transfer(1, CAROL, 1n)]);
  await seq.flashblock(plan, 1, [await seq.transfer(2, CAROL, 2n)], send);
  await seq.flashblock(plan, 2, [await seq.transfer(3, CAROL, 4n)], send);
  await h.event(before, "nonZeroFirst", 2);
  await h.assertPendingIsLatest(HOLDERS, "without index 0");
  await seq.mine(plan);
  await h.headIs(plan.number);
  await h.assertPendingIsLatest(HOLDERS, "once the block landed");
});

test("index 0 of block N+1 before N is canonical here waits in the cache and is applied when N lands", async () => {
  const { seq, send } = h;
  const plan = await seq.plan();
  const a = await seq.transfer(1, CAROL, 1n);
  await seq.flashblock(plan, 0, [a], send);
  await h.pendingHolds("block N's flashblock 0", [a.hash]);
  // The stream runs ahead of the chain: N is mined, the follower does not see it yet.
  holdHeadAt(plan.number - 1);
  try {
    await seq.mine(plan);
    const next = await seq.plan();
    const before = await h.events();
    const b = await seq.transfer(2, CAROL, 2n);
    await seq.flashblock(next, 0, [b], send);
    await h.event(before, "earlyCached");
    assert.deepEqual(await h.pendingReceiptHashes(), [a.hash], "N's pre-confirmed block stays");
    assert.equal(await h.rpc("eth_blockNumber"), `0x${(plan.number - 1).toString(16)}`);
    release();
    await h.event(before, "earlyApplied");
    await h.headIs(plan.number);
    await h.pendingHolds("N+1's flashblock 0, from the cache", [b.hash]);
    const events = await h.events();
    assert.equal(events.canonicalMatch, (before.canonicalMatch ?? 0) + 1);
    await seq.mine(next);
    await h.headIs(next.number);
  } finally {
    release();
  }
});

test("a canonical block that leaves out a pre-confirmed transaction drops it; pending is rebuilt from the later flashblocks", async () => {
  const { seq, send } = h;
  // Block N: b is pre-confirmed but never reaches the chain.
  const plan = await seq.plan();
  const start = await h.balance(CAROL, "latest");
  const a = await seq.transfer(1, CAROL, 1n);
  const b = await seq.transfer(2, CAROL, 2n);
  await seq.flashblock(plan, 0, [a], send);
  await send(seq.message(plan, 1, [b]));
  await h.pendingHolds("a and b", [a.hash, b.hash]);
  assert.equal(await h.balance(CAROL, "pending"), start + 3n);
  let before = await h.events();
  await seq.mine(plan);
  await h.headIs(plan.number);
  await h.event(before, "canonicalMismatch");
  await pendingFellBack("b was left out and nothing later is pre-confirmed");
  assert.equal(await h.balance(CAROL, "latest"), start + 1n);
  await seq.resyncNonce(2);

  // Block N+1 leaves out d; N+2's index 0 came before N+1 landed here: pending is rebuilt from it.
  const plan1 = await seq.plan();
  const c = await seq.transfer(3, CAROL, 4n);
  const d = await seq.transfer(2, CAROL, 8n);
  await seq.flashblock(plan1, 0, [c], send);
  await send(seq.message(plan1, 1, [d]));
  await h.pendingHolds("c and d", [c.hash, d.hash]);
  holdHeadAt(plan.number);
  try {
    await seq.mine(plan1);
    await seq.resyncNonce(2);
    const plan2 = await seq.plan();
    const e = await seq.transfer(4, CAROL, 16n);
    before = await h.events();
    await seq.flashblock(plan2, 0, [e], send);
    await h.event(before, "earlyCached");
    release();
    await h.event(before, "canonicalMismatch");
    await h.event(before, "earlyApplied");
    await h.headIs(plan1.number);
    await h.pendingHolds("N+2's flashblock 0 alone", [e.hash]);
    assert.equal(await h.balance(CAROL, "latest"), start + 5n);
    assert.equal(await h.balance(CAROL, "pending"), start + 21n, "d is gone, e is there");
    await seq.mine(plan2);
    await h.headIs(plan2.number);
  } finally {
    release();
  }
});

test("pending more than --max-pending-depth blocks behind the chain's tip is dropped", async () => {
  const { seq, send } = h;
  const plan = await seq.plan();
  const a = await seq.transfer(1, CAROL, 1n);
  await seq.flashblock(plan, 0, [a], send);
  await h.pendingHolds("block N's flashblock 0", [a.hash]);
  // The follower learns the tip but cannot import (its block fetches fail): it lags.
  h.proxy.intercept = (c) =>
    c.method === "eth_getBlockByNumber" && c.params[1] === true
      ? { error: { code: -32000, message: "the test holds blocks back" } }
      : undefined;
  try {
    const before = await h.events();
    await seq.mine(plan);
    // Each with a later timestamp: anvil's own evm_mine may repeat its parent's.
    for (let i = 0; i < 4; i++) await seq.mine(await seq.plan());
    await h.event(before, "depthExceeded");
    await pendingFellBack("pending N is 4 blocks behind the tip N+4");
    assert.equal(await h.rpc("eth_blockNumber"), `0x${(plan.number - 1).toString(16)}`);
    release();
    await h.headIs(plan.number + 4);
    await h.assertPendingIsLatest(HOLDERS, "caught up");
  } finally {
    release();
  }
});

test("a cut stream is dialled again; the block goes on where it was", async () => {
  const { seq, send } = h;
  const plan = await seq.plan();
  const a = await seq.transfer(1, CAROL, 1n);
  const b = await seq.transfer(2, CAROL, 2n);
  const m0 = await seq.flashblock(plan, 0, [a], send);
  const m1 = await seq.flashblock(plan, 1, [b], send);
  await h.pendingHolds("a and b", [a.hash, b.hash]);
  const before = await h.events();
  const connections = h.connections.length;
  h.ws.terminate();
  await h.until(
    "the follower to dial again",
    async () => h.connections.length,
    (n) => n > connections,
  );
  await h.event(before, "streamReconnects");
  assert.deepEqual(await h.pendingReceiptHashes(), [a.hash, b.hash], "a cut keeps pending");
  // Like flashnode's own /flashblocks, the source sends a joining client the block so far.
  await send(m0);
  await send(m1);
  const c = await seq.transfer(3, CAROL, 4n);
  await seq.flashblock(plan, 2, [c], send);
  await h.pendingHolds("flashblock 2 on the new connection", [a.hash, b.hash, c.hash]);
  await h.event(before, "duplicate", 2);
  await seq.mine(plan);
  await h.headIs(plan.number);
});

test("a flashblock that does not run here is refused and pending dropped, never half-applied", async () => {
  const { seq, send } = h;
  const plan = await seq.plan();
  const start = await h.balance(CAROL, "latest");
  const a = await seq.transfer(1, CAROL, 1n);
  await seq.flashblock(plan, 0, [a], send);
  await h.pendingHolds("flashblock 0", [a.hash]);
  // Flashblock 1 claims more gas than its transactions use: not this chain's block.
  const b = await seq.transfer(2, CAROL, 2n);
  const c = await seq.transfer(3, CAROL, 4n);
  await seq.toPool([b, c]);
  const before = await h.events();
  send(seq.message(plan, 1, [b, c], { gasUsed: (await seq.poolGas()) + 1n }));
  await h.event(before, "executionFailed");
  await pendingFellBack("flashblock 1 was refused");
  // The rest of that build is past a hole now.
  const d = await seq.transfer(4, CAROL, 8n);
  await seq.flashblock(plan, 2, [d], send);
  await h.event(before, "nonZeroFirst");
  await h.assertPendingIsLatest(HOLDERS, "after the refused flashblock");
  await seq.mine(plan);
  await h.headIs(plan.number);
  assert.equal(await h.balance(CAROL, "latest"), start + 15n);
});

test("a reorg of the upstream is unwound to the common ancestor; pending goes on on the new branch", async () => {
  const { seq, send } = h;
  const start = await h.balance(CAROL, "latest");
  const snapshot = await seq.anvil.rpc<string>("evm_snapshot");
  const plan = await seq.plan();
  const a = await seq.transfer(1, CAROL, 1n);
  await seq.flashblock(plan, 0, [a], send);
  await h.pendingHolds("a", [a.hash]);
  await seq.mine(plan);
  await h.headIs(plan.number);
  assert.equal(await h.balance(CAROL, "latest"), start + 1n);

  // The upstream drops block N for another N and builds N+1 on it.
  const before = await h.events();
  await seq.anvil.rpc("evm_revert", [snapshot]);
  await seq.anvil.rpc("anvil_dropAllTransactions");
  await seq.resyncNonce(1);
  const other = await seq.plan();
  assert.equal(other.number, plan.number);
  await seq.toPool([await seq.transfer(2, CAROL, 2n)]);
  await seq.mine({ ...other, timestamp: other.timestamp + 1n });
  const next = await seq.plan();
  await seq.toPool([await seq.transfer(3, CAROL, 4n)]);
  const tip = await seq.mine(next);
  await h.headIs(next.number);
  await h.event(before, "canonicalReorg");
  for (const n of [plan.number, next.number]) {
    const id = `0x${n.toString(16)}`;
    const ours = (await h.rpc("eth_getBlockByNumber", [id, false])) as { hash: string };
    const theirs = await seq.anvil.rpc<{ hash: string }>("eth_getBlockByNumber", [id, false]);
    assert.equal(ours.hash, theirs.hash, `block ${n} is the new branch's`);
  }
  assert.equal(
    ((await h.rpc("eth_getBlockByNumber", ["latest", false])) as { hash: string }).hash,
    tip.hash,
  );
  assert.equal(await h.rpc("eth_getTransactionReceipt", [a.hash]), null, "a left the chain");
  assert.equal(await h.balance(CAROL, "latest"), start + 6n);
  await h.assertPendingIsLatest(HOLDERS, "after the reorg");

  const last = await seq.plan();
  const d = await seq.transfer(4, CAROL, 8n);
  await seq.flashblock(last, 0, [d], send);
  await h.pendingHolds("d on the new branch", [d.hash]);
  assert.equal(await h.balance(CAROL, "pending"), start + 14n);
  await seq.mine(last);
  await h.headIs(last.number);
});
