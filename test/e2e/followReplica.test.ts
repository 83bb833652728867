// A replica of a follower: `flashnode follow --nats` of a `dev` sequencer (its RPC and its
// /flashblocks) publishes what it follows, and `flashnode replica --nats --fork-url <the
// sequencer>` keeps an archive of its own from it. The replica answers eth_getStorageAt and
// eth_getBlockReceipts at `pending`, at `latest` and at a block before the follower's first block
// F as the sequencer does; transactions sent to the replica reach the sequencer through the
// follower.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { RunningNode } from "../../src/node/plan.ts";
import { DEFAULT_STREAMS } from "../../src/replica/streams.ts";
import {
  deployStorageContract,
  devSigner,
  pendingHolds,
  pollUntil,
  setCalldata,
  signAtPendingNonce,
  startTestDevNode,
  startTestFollower,
} from "../utils/devChain.ts";
import { call, tempDatadir } from "../utils/fixtures.ts";
import { type NatsServer, startNatsServer } from "../utils/nats.ts";
import { startReplicaNode } from "../utils/nodes.ts";

const SET_TOPIC = `0x${"ab".repeat(32)}`;
const alice = devSigner();
const STREAMS = { ...DEFAULT_STREAMS, prefix: "fleet" };

let nats: NatsServer;
let sequencer: RunningNode;
let follower: RunningNode;
let replica: RunningNode;
let contract: `0x${string}`;
/** A block before the follower's first block F, where the contract holds 42 (its constructor's). */
let beforeF: string;

async function send(url: string, data: `0x${string}`, to?: `0x${string}`): Promise<string> {
  const raw = await signAtPendingNonce(sequencer.url, alice, {
    gas: 300_000n,
    data,
    ...(to === undefined ? {} : { to }),
  });
  return (await call(url, "eth_sendRawTransaction", [raw])) as string;
}

async function headOf(node: RunningNode): Promise<number> {
  return Number(await call(node.url, "eth_blockNumber"));
}

before(async () => {
  nats = await startNatsServer();
  // Long blocks: the pending block stays put while the nodes are compared; evm_mine seals.
  sequencer = await startTestDevNode({ blockTimeMs: 600_000, flashblockIntervalMs: 100 });
  contract = await deployStorageContract(sequencer.url, alice, SET_TOPIC);
  await call(sequencer.url, "evm_mine");
  beforeF = `0x${(await headOf(sequencer)).toString(16)}`;
  // Another block, so that the follower's F (the sequencer's head) is after beforeF.
  await pendingHolds(sequencer, await send(sequencer.url, setCalldata(7n), contract));
  await call(sequencer.url, "evm_mine");
  follower = await startTestFollower(sequencer, "follow-replica-follower", {
    nats: { servers: [nats.url], streams: STREAMS },
  });
  replica = await startReplicaNode({
    datadir: tempDatadir("follow-replica-replica"),
    nats: [nats.url],
    streams: STREAMS,
    flashblockIntervalMs: 100,
    forkUpstream: sequencer.url,
  });
  // A replica that starts in the middle of a block shows pending from the next seal on.
  await call(sequencer.url, "evm_mine");
  const head = await headOf(sequencer);
  for (const node of [follower, replica])
    await pollUntil(
      () => headOf(node),
      (n) => n >= head,
      60_000,
    );
});

after(async () => {
  await replica?.close();
  await follower?.close();
  await sequencer?.close();
  await nats?.stop();
});

test("the follower alone on its stream publishes it: /readyz and the metric say so", async () => {
  assert.ok(Number(beforeF) < (follower.fork?.number ?? 0), "beforeF is before F");
  const readyz = (await (await fetch(`${follower.url}readyz`)).json()) as { publisher?: string };
  assert.equal(readyz.publisher, "leader", "a follower alone on its stream publishes it");
  const metrics = await (await fetch(`${follower.url}metrics`)).text();
  assert.match(metrics, /flashnode_follow_publisher_role\{role="leader"\} 1/);
});

test("pending, latest and a block before F on the replica answer as on the sequencer", async () => {
  // Sent to the replica: through NATS to the follower, which forwards it to the sequencer.
  const hash = await send(replica.url, setCalldata(77n), contract);
  for (const node of [sequencer, follower, replica]) await pendingHolds(node, hash);
  const same = async (method: string, params: unknown[]) =>
    assert.deepEqual(
      await call(replica.dedicatedUrl, method, params),
      await call(sequencer.dedicatedUrl, method, params),
      `${method}(${JSON.stringify(params)})`,
    );
  for (const at of ["pending", "latest", beforeF]) {
    await same("eth_getStorageAt", [contract, "0x0", at]);
    await same("eth_getBlockReceipts", [at]);
  }
  const storage = async (at: string) =>
    BigInt(String(await call(replica.url, "eth_getStorageAt", [contract, "0x0", at])));
  assert.equal(await storage("pending"), 77n);
  assert.equal(await storage("latest"), 7n);
  assert.equal(await storage(beforeF), 42n);
  const pendingReceipts = (await call(replica.dedicatedUrl, "eth_getBlockReceipts", [
    "pending",
  ])) as { transactionHash: string }[];
  assert.ok(pendingReceipts.some((r) => r.transactionHash === hash));

  // Sealed: the replica's latest moves on with the sequencer's.
  await call(sequencer.url, "evm_mine");
  const sealed = await headOf(sequencer);
  await pollUntil(
    () => headOf(replica),
    (n) => n >= sealed,
    30_000,
  );
  const id = `0x${sealed.toString(16)}`;
  await same("eth_getBlockReceipts", [id]);
  await same("eth_getBlockReceipts", ["latest"]);
  await same("eth_getStorageAt", [contract, "0x0", "latest"]);
  await same("eth_getBlockByNumber", [id, true]);
  assert.equal(await storage("latest"), 77n);
});
