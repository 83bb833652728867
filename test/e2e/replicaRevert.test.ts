// evm_revert on a sequencer that replicas follow over NATS: a replica following live goes back
// with it (its archive unwound, its pending view rebuilt) and then follows the new chain; a
// replica stopped during the revert and restarted while the new chain is shorter (it reads the
// revert mark in order), one restarted once the new chain is longer than the dropped one (it
// finds where its archive and the stream part), and a new one replaying the stream from block
// 0 end on the same chain too. Every block then answers byte-identically.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { RunningNode as DevNode, RunningNode as ReplicaNode } from "../../src/node/plan.ts";
import { DEFAULT_STREAMS } from "../../src/replica/streams.ts";
import { pollUntil, startTestDevNode } from "../utils/devChain.ts";
import { call, tempDatadir } from "../utils/fixtures.ts";
import { type NatsServer, startNatsServer } from "../utils/nats.ts";
import { startReplicaNode } from "../utils/nodes.ts";
import { TEST_API_KEY } from "../utils/options.ts";
import { assertSameBlocks } from "../utils/replicas.ts";

let nats: NatsServer;
let dev: DevNode;
const replicas: ReplicaNode[] = [];

const devUrl = () => `${dev.url}rpc/${TEST_API_KEY}`;
const urlOf = (r: ReplicaNode) => `${r.url}rpc/${TEST_API_KEY}`;

function startReplica(datadir: string): Promise<ReplicaNode> {
  return startReplicaNode({
    datadir,
    nats: [nats.url],
    streams: DEFAULT_STREAMS,
  });
}

const headOf = async (url: string) => Number(await call(url, "eth_blockNumber"));
const hashAt = async (url: string, n: number) =>
  (
    (await call(url, "eth_getBlockByNumber", [`0x${n.toString(16)}`, false])) as {
      hash: string;
    } | null
  )?.hash;

/** Waits until the replica has the sequencer's head block (same number, same hash). */
async function caughtUp(r: ReplicaNode): Promise<number> {
  const target = await headOf(devUrl());
  const want = await hashAt(devUrl(), target);
  await pollUntil(
    () => hashAt(urlOf(r), target),
    (h) => h === want,
    30_000,
    50,
  );
  assert.equal(await headOf(urlOf(r)), target);
  return target;
}

async function transfers(count: number, to: string): Promise<string[]> {
  const from = dev.accounts[0]!.address;
  const hashes: string[] = [];
  for (let i = 0; i < count; i++)
    hashes.push(
      (await call(devUrl(), "eth_sendTransaction", [{ from, to, value: "0x1" }])) as string,
    );
  return hashes;
}

before(async () => {
  nats = await startNatsServer();
  dev = await startTestDevNode({
    blockTimeMs: 3_600_000,
    flashblockIntervalMs: 50,
    safeDepth: 2,
    finalizedDepth: 4,
    nats: { servers: [nats.url], streams: DEFAULT_STREAMS },
  });
});

after(async () => {
  for (const r of replicas) await r.close();
  await dev?.close();
  await nats?.stop();
});

test("replicas follow evm_revert: live, stopped during it, and replaying from block 0", async () => {
  const to = dev.accounts[4]!.address;
  await transfers(2, to);
  await call(devUrl(), "anvil_mine", [3]);
  const live = await startReplica(tempDatadir("replica-revert-live"));
  const stoppedDir = tempDatadir("replica-revert-stopped");
  let stopped = await startReplica(stoppedDir);
  const laterDir = tempDatadir("replica-revert-later");
  let later = await startReplica(laterDir);
  replicas.push(live, stopped, later);
  for (const r of replicas) await caughtUp(r);

  const id = (await call(devUrl(), "evm_snapshot")) as string;
  const base = await headOf(devUrl());
  const dropped = await transfers(2, to);
  await call(devUrl(), "anvil_mine", [4]);
  for (const r of replicas) await caughtUp(r);
  // Two replicas are down while the sequencer goes back.
  for (const r of [stopped, later]) {
    await r.close();
    replicas.splice(replicas.indexOf(r), 1);
  }
  assert.equal(await call(devUrl(), "evm_revert", [id]), true);
  assert.equal(await headOf(devUrl()), base);

  // The live replica goes back at once: head, dropped transactions, pending view.
  await pollUntil(
    () => headOf(urlOf(live)),
    (n) => n === base,
    30_000,
    50,
  );
  for (const h of dropped)
    await pollUntil(
      () => call(urlOf(live), "eth_getTransactionReceipt", [h]),
      (r) => r === null,
      30_000,
      50,
    );
  // The new chain: fewer blocks than the dropped one had, so the numbers are reused.
  const kept = await transfers(1, dev.accounts[5]!.address);
  await call(devUrl(), "anvil_mine", [2]);
  const head = await caughtUp(live);
  assert.ok(head < base + 4, "the new chain is shorter than the one dropped");
  stopped = await startReplica(stoppedDir);
  const fresh = await startReplica(tempDatadir("replica-revert-fresh"));
  replicas.push(stopped, fresh);
  for (const r of [live, stopped, fresh]) {
    assert.equal(await caughtUp(r), head);
    await assertSameBlocks(devUrl(), urlOf(r), head);
    for (const h of dropped)
      assert.equal(await call(urlOf(r), "eth_getTransactionReceipt", [h]), null);
    assert.notEqual(await call(urlOf(r), "eth_getTransactionReceipt", [kept[0]]), null);
    // Nothing of the dropped chain above the head.
    assert.equal(await hashAt(urlOf(r), head + 1), undefined);
  }
  // The new chain grows past the dropped one's head: the block stream's newest message of the
  // old head's number is now the new chain's.
  await call(devUrl(), "anvil_mine", [4]);
  const longer = await headOf(devUrl());
  assert.ok(longer > base + 4);
  later = await startReplica(laterDir);
  replicas.push(later);
  for (const r of [live, stopped, later]) {
    assert.equal(await caughtUp(r), longer);
    await assertSameBlocks(devUrl(), urlOf(r), longer);
    for (const h of dropped)
      assert.equal(await call(urlOf(r), "eth_getTransactionReceipt", [h]), null);
  }
  // Pending on the live replica is the sequencer's (same number, same transactions).
  const [last] = await transfers(1, to);
  await pollUntil(
    () => call(devUrl(), "eth_getTransactionReceipt", [last]),
    (r) => r !== null,
  );
  const pending = async (url: string) =>
    JSON.stringify(
      (await call(url, "eth_getBlockByNumber", ["pending", false])) as {
        number: string;
        transactions: string[];
      },
      ["number", "transactions"],
    );
  const want = await pending(devUrl());
  await pollUntil(
    () => pending(urlOf(live)),
    (p) => p === want,
    30_000,
    50,
  );
});
