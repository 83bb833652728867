// The follower's upstream round trips never hold its flashblocks back (issue 32 item 4): while a
// catch-up waits on the upstream for the chain's tip or for a block, a flashblock that arrives is
// applied at once. The proxy in front of anvil holds those answers until the test lets them go.
import { after, before, test } from "node:test";
import { FollowHarness } from "../utils/followHarness.ts";
import type { ProxyCall } from "../utils/rpcProxy.ts";

const CAROL = "0x00000000000000000000000000000000000c0a02";
let h: FollowHarness;

before(async () => {
  h = await FollowHarness.start({ label: "follow-queue" });
});

after(async () => {
  await h?.close();
});

/**
 * Holds the upstream's answer to every request with a call that `matches` until the returned
 * `release` is called; `held()` counts the requests held so far.
 */
function holdAnswers(matches: (c: ProxyCall) => boolean): {
  held: () => number;
  release: () => void;
} {
  let open = (): void => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let held = 0;
  h.proxy.hold = ({ calls }) => {
    if (!calls.some(matches)) return undefined;
    held++;
    return gate;
  };
  return {
    held: () => held,
    release: () => {
      h.proxy.hold = undefined;
      h.proxy.intercept = undefined;
      open();
    },
  };
}

const hex = (n: number): string => `0x${n.toString(16)}`;

test("a flashblock is applied while the follower waits on the upstream for the chain's tip", async () => {
  const { seq, send } = h;
  const plan = await seq.plan();
  const a = await seq.transfer(1, CAROL, 1n);
  await seq.flashblock(plan, 0, [a], send);
  await h.pendingHolds("flashblock 0", [a.hash]);
  const gate = holdAnswers((c) => c.method === "eth_blockNumber");
  try {
    // The next poll asks for the tip, and its answer does not come.
    await h.until(
      "a poll waiting on eth_blockNumber",
      async () => gate.held(),
      (n) => n > 0,
    );
    const b = await seq.transfer(2, CAROL, 2n);
    await seq.flashblock(plan, 1, [b], send);
    await h.pendingHolds("flashblock 1, the tip still unanswered", [a.hash, b.hash]);
  } finally {
    gate.release();
  }
  await seq.mine(plan);
  await h.headIs(plan.number);
});

test("a flashblock is applied while the follower waits on the upstream for a block", async () => {
  const { seq, send } = h;
  const plan = await seq.plan();
  const a = await seq.transfer(1, CAROL, 1n);
  await seq.flashblock(plan, 0, [a], send);
  await h.pendingHolds("flashblock 0", [a.hash]);
  // The upstream says block N is there, and its answer for N does not come.
  h.proxy.intercept = (c) =>
    c.method === "eth_blockNumber" ? { result: hex(plan.number) } : undefined;
  const gate = holdAnswers(
    (c) => c.method === "eth_getBlockByNumber" && c.params[0] === hex(plan.number),
  );
  try {
    await h.until(
      "a catch-up waiting on block N",
      async () => gate.held(),
      (n) => n > 0,
    );
    const b = await seq.transfer(2, CAROL, 2n);
    await seq.flashblock(plan, 1, [b], send);
    await h.pendingHolds("flashblock 1, block N still unanswered", [a.hash, b.hash]);
  } finally {
    gate.release();
  }
  const before = await h.events();
  await seq.mine(plan);
  await h.headIs(plan.number);
  await h.event(before, "canonicalMatch");
});
