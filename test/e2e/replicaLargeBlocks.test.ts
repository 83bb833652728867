// A sealed block, and a flashblock, larger than the NATS server's max_payload (here 64 KiB; 1 MiB
// by default, which a block of ~1,700 transfers exceeds) reach a replica in parts: it follows
// the flashblock into its pending view, stores the block, and a new replica catches up through
// it. Before parts, the publisher's every retry of such a block failed ("max_payload size
// exceeded") and replicas stopped at the block before it, for good.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { RunningNode } from "../../src/node/plan.ts";
import { DEFAULT_STREAMS } from "../../src/replica/streams.ts";
import { pollUntil, sendRawBatch, signTransfer, startTestDevNode } from "../utils/devChain.ts";
import { call, tempDatadir } from "../utils/fixtures.ts";
import { type NatsServer, startNatsServer } from "../utils/nats.ts";
import { startReplicaNode } from "../utils/nodes.ts";
import { TEST_API_KEY } from "../utils/options.ts";

const SENDERS = 4;
const PER_SENDER = 100;

let nats: NatsServer;
let dev: RunningNode;
const replicas: RunningNode[] = [];

const url = (n: RunningNode) => `${n.url}rpc/${TEST_API_KEY}`;

function startReplica(name: string): Promise<RunningNode> {
  return startReplicaNode({
    datadir: tempDatadir(name),
    nats: [nats.url],
    streams: DEFAULT_STREAMS,
    flashblockIntervalMs: 100,
  }).then((r) => {
    replicas.push(r);
    return r;
  });
}

async function pendingCount(n: RunningNode): Promise<number> {
  const b = (await call(url(n), "eth_getBlockByNumber", ["pending", false])) as {
    transactions: string[];
  } | null;
  return b?.transactions.length ?? 0;
}

before(async () => {
  nats = await startNatsServer({ maxPayload: 64 * 1024 });
  // Blocks seal on evm_mine only: the pending block grows until the test seals it.
  dev = await startTestDevNode({
    blockTimeMs: 600_000,
    flashblockIntervalMs: 100,
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

test("a block and a flashblock above max_payload reach replicas in parts", async () => {
  const first = await startReplica("replica-large-1");
  // A seal with the replica listening: its update opens the block the test fills.
  await call(url(dev), "evm_mine");
  const opened = Number(await call(url(dev), "eth_blockNumber"));
  await pollUntil(
    async () => Number(await call(url(first), "eth_blockNumber")),
    (n) => n >= opened,
    30_000,
  );
  const txs: string[] = [];
  for (let from = 0; from < SENDERS; from++)
    for (let nonce = 0; nonce < PER_SENDER; nonce++)
      txs.push(await signTransfer(dev, from, { nonce }));
  const answers = await sendRawBatch(url(dev), txs);
  assert.deepEqual(
    answers.filter((a) => a.error !== undefined),
    [],
  );
  const total = SENDERS * PER_SENDER;
  // All of them, and the block's L1-info deposit (an OP-stack chain).
  const inBlock = await pollUntil(
    () => pendingCount(dev),
    (n) => n > total,
    30_000,
  );
  // The flashblocks that carried them went to the replica (some in parts).
  await pollUntil(
    () => pendingCount(first),
    (n) => n === inBlock,
    30_000,
  );
  assert.deepEqual(
    await call(url(first), "eth_getBlockReceipts", ["pending"]),
    await call(url(dev), "eth_getBlockReceipts", ["pending"]),
  );

  await call(url(dev), "evm_mine");
  const sealed = Number(await call(url(dev), "eth_blockNumber"));
  const block = `0x${sealed.toString(16)}`;
  const theirs = (await call(url(dev), "eth_getBlockByNumber", [block, false])) as {
    transactions: string[];
  };
  assert.equal(theirs.transactions.length, inBlock);
  await pollUntil(
    async () => Number(await call(url(first), "eth_blockNumber")),
    (n) => n >= sealed,
    30_000,
  );
  for (const method of ["eth_getBlockByNumber", "eth_getBlockReceipts"]) {
    const params = method === "eth_getBlockByNumber" ? [block, true] : [block];
    assert.deepEqual(
      await call(url(first), method, params),
      await call(url(dev), method, params),
      method,
    );
  }

  // A replica started afterwards catches up through the block in parts.
  const second = await startReplica("replica-large-2");
  await pollUntil(
    async () => Number(await call(url(second), "eth_blockNumber")),
    (n) => n >= sealed,
    30_000,
  );
  assert.deepEqual(
    await call(url(second), "eth_getBlockReceipts", [block]),
    await call(url(dev), "eth_getBlockReceipts", [block]),
  );
});
