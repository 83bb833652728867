// A 3-node NATS cluster with replicated streams (JetStream RAFT, 3 copies) loses one node, the
// leader of the block stream, while a sequencer publishes under load and a replica follows:
// publishing and following go on through the two survivors, and the replica's chain is the
// sequencer's, byte for byte, with nothing lost, duplicated or reordered.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { RunningNode as DevNode, RunningNode as ReplicaNode } from "../../src/node/plan.ts";
import { DEFAULT_STREAMS, streamNames } from "../../src/replica/streams.ts";
import { pollUntil, signTransfer, startTestDevNode } from "../utils/devChain.ts";
import { call, tempDatadir } from "../utils/fixtures.ts";
import { type NatsCluster, startNatsCluster } from "../utils/nats.ts";
import { startReplicaNode } from "../utils/nodes.ts";
import { TEST_API_KEY } from "../utils/options.ts";
import { rawCall } from "../utils/replicas.ts";

const STREAMS = { ...DEFAULT_STREAMS, prefix: "clustered", replicas: 3 };
const names = streamNames(STREAMS.prefix);
let cluster: NatsCluster;
let dev: DevNode;
let replica: ReplicaNode | undefined;
let load: NodeJS.Timeout | undefined;

const devUrl = () => `${dev.url}rpc/${TEST_API_KEY}`;

/** The block stream's leader and its newest block, asked of the nodes still running. */
async function blockStream(urls: readonly string[]): Promise<{ leader: string; last: number }> {
  const nc = await connect({ servers: [...urls] });
  try {
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(names.blocks);
    const m = await jsm.streams.getMessage(names.blocks, { seq: info.state.last_seq });
    return {
      leader: info.cluster?.leader ?? "",
      last: Number(m?.header.get("Flashnode-Block")),
    };
  } finally {
    await nc.close();
  }
}

before(async () => {
  cluster = await startNatsCluster(3);
  dev = await startTestDevNode({
    blockTimeMs: 300,
    flashblockIntervalMs: 50,
    nats: { servers: cluster.urls, streams: STREAMS },
  });
  let sent = 0;
  load = setInterval(() => {
    const nonce = sent++;
    void signTransfer(dev, 3, { nonce })
      .then((tx) => call(devUrl(), "eth_sendRawTransaction", [tx]))
      .catch(() => {});
  }, 50);
});

after(async () => {
  if (load !== undefined) clearInterval(load);
  await replica?.close();
  await dev?.close();
  await cluster?.stop();
});

test("a 3-node cluster loses the block stream's leader: publishing and following go on", async () => {
  replica = await startReplicaNode({
    datadir: tempDatadir("replica-cluster"),
    nats: cluster.urls,
    streams: STREAMS,
  });
  const replicaUrl = `${replica.url}rpc/${TEST_API_KEY}`;
  // Streams are created once the cluster has elected its JetStream leader; wait for blocks.
  const before = await pollUntil(
    () => blockStream(cluster.urls).catch(() => ({ leader: "", last: -1 })),
    (s) => s.last >= 5 && s.leader !== "",
    30_000,
    200,
  );
  const replicas = (
    await (async () => {
      const nc = await connect({ servers: [...cluster.urls] });
      try {
        return (await (await jetstreamManager(nc)).streams.info(names.blocks)).cluster;
      } finally {
        await nc.close();
      }
    })()
  )?.replicas;
  assert.equal((replicas ?? []).length, 2, "the block stream has 3 copies (a leader and 2 more)");

  const killed = cluster.names.indexOf(before.leader);
  assert.ok(killed >= 0, `leader ${before.leader} is one of the nodes`);
  await cluster.kill(killed);
  const survivors = cluster.urls.filter((_, i) => i !== killed);
  const killedAt = Number(await call(devUrl(), "eth_blockNumber"));

  // The survivors elected a new leader and hold blocks sealed after the kill (five of them:
  // the sequencer kept publishing through the election).
  const after = await pollUntil(
    () => blockStream(survivors).catch(() => ({ leader: "", last: -1 })),
    (s) => s.last >= killedAt + 5,
    30_000,
    200,
  );
  assert.notEqual(after.leader, before.leader, "a survivor leads the block stream");

  const target = Number(await call(devUrl(), "eth_blockNumber"));
  await pollUntil(
    async () => Number(await call(replicaUrl, "eth_blockNumber")),
    (n) => n >= target,
    30_000,
    50,
  );
  let transactions = 0;
  for (let n = 0; n <= target; n++) {
    const tag = `0x${n.toString(16)}`;
    const [ra, rb] = await Promise.all([
      rawCall(devUrl(), "eth_getBlockReceipts", [tag]),
      rawCall(replicaUrl, "eth_getBlockReceipts", [tag]),
    ]);
    assert.equal(rb, ra, `receipts of block ${n}`);
    const [ba, bb] = await Promise.all([
      rawCall(devUrl(), "eth_getBlockByNumber", [tag, false]),
      rawCall(replicaUrl, "eth_getBlockByNumber", [tag, false]),
    ]);
    assert.equal(bb, ba, `block ${n}`);
    transactions += (JSON.parse(ra).result as []).length;
  }
  assert.ok(transactions > 0, "the chain carries transactions");
  // The pending view follows through the survivors too: it builds on the replica's head (a
  // stale view would fall back to the head itself; pending is read first, so a seal in between
  // cannot pass for it).
  await pollUntil(
    async () => {
      const p = (await call(replicaUrl, "eth_getBlockByNumber", ["pending", false])) as {
        number: string;
      };
      return Number(p.number) - Number(await call(replicaUrl, "eth_blockNumber"));
    },
    (d) => d === 1,
    // The flashblock consumer recovers on its own schedule (a stall noticed, a new consumer
    // placed on a survivor): as long as the block consumer's, not a 10 s race.
    30_000,
    20,
  );
});
