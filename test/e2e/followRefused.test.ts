// A followed block this node's rules execute differently (a follower at --hardfork osaka of a
// Prague chain, and a transaction that runs Osaka's CLZ opcode): following stops at that block
// with the mismatch named, /readyz says so, and the blocks before it keep answering. (It once
// retried the block for ever: the reset after the mismatch went to the upstream's state root,
// which is not in the follower's own trie, and every retry failed on that.)
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { RunningNode } from "../../src/node/plan.ts";
import {
  devSigner,
  pollUntil,
  signAtPendingNonce,
  startTestDevNode,
  startTestFollower,
} from "../utils/devChain.ts";
import { call } from "../utils/fixtures.ts";

const alice = devSigner();

let sequencer: RunningNode;
let follower: RunningNode;

before(async () => {
  sequencer = await startTestDevNode({
    blockTimeMs: 600_000,
    flashblockIntervalMs: 100,
    fork: "prague",
  });
  follower = await startTestFollower(sequencer, "follow-refused", { hardfork: "osaka" });
});

after(async () => {
  await follower?.close();
  await sequencer?.close();
});

test("a block that executes differently here stops following, with the reason", async () => {
  // A block both execute alike first: the follower is following.
  await call(sequencer.url, "evm_mine");
  const agreed = Number(await call(sequencer.url, "eth_blockNumber"));
  await pollUntil(
    async () => Number(await call(follower.url, "eth_blockNumber")),
    (n) => n >= agreed,
    30_000,
  );
  // Init code PUSH1 1, CLZ, STOP: Prague has no such opcode (the creation fails, all its gas
  // spent), Osaka creates an empty contract.
  const raw = await signAtPendingNonce(sequencer.url, alice, { gas: 100_000n, data: "0x60011e00" });
  const hash = (await call(sequencer.url, "eth_sendRawTransaction", [raw])) as string;
  await pollUntil(
    async () => call(sequencer.url, "eth_getTransactionReceipt", [hash]),
    (r) => r !== null,
    30_000,
  ).catch(() => undefined);
  await call(sequencer.url, "evm_mine");
  const refused = agreed + 1;
  const readyz = await pollUntil(
    async () => {
      const res = await fetch(`${follower.url}readyz`);
      return { status: res.status, body: await res.text() };
    },
    (r) => r.status !== 200 && r.body.includes("following stopped"),
    30_000,
  );
  assert.match(
    readyz.body,
    new RegExp(`following stopped at block ${refused} \\(0x[0-9a-f]{64}\\): gas used mismatch`),
  );
  assert.equal(Number(await call(follower.url, "eth_blockNumber")), agreed);
  assert.deepEqual(
    await call(follower.url, "eth_getBlockByNumber", [`0x${agreed.toString(16)}`, false]),
    await call(sequencer.url, "eth_getBlockByNumber", [`0x${agreed.toString(16)}`, false]),
  );
});
