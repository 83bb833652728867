// A new replica joins after the block stream's retention dropped block 0: the sequencer stores a
// snapshot of its archive in a JetStream object store every few blocks, the replica restores the
// newest one and follows the stream from there, and answers byte-identically to the sequencer for
// every block (those from the snapshot and those from the stream). Without a usable snapshot a
// replica says what it waits for.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, test } from "node:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect, headers } from "@nats-io/transport-node";
import pino from "pino";
import { keccak256, toHex } from "viem";
import type { RunningNode as DevNode, RunningNode as ReplicaNode } from "../../src/node/plan.ts";
import { latestSnapshot } from "../../src/replica/snapshots.ts";
import { DEFAULT_STREAMS, streamNames } from "../../src/replica/streams.ts";
import {
  type FlashblockFeed,
  flashblockFeed,
  pollUntil,
  setCalldata,
  signTransfer,
  startTestDevNode,
  storageContractBytecode,
} from "../utils/devChain.ts";
import { BIN, call, tempDatadir } from "../utils/fixtures.ts";
import { type NatsServer, startNatsServer } from "../utils/nats.ts";
import { startReplicaNode } from "../utils/nodes.ts";
import { TEST_API_KEY } from "../utils/options.ts";
import { assertSameBlocks, nonceSigner, rawCall } from "../utils/replicas.ts";

const PREFIX = "snaptest";
const names = streamNames(PREFIX);
let nats: NatsServer;
let dev: DevNode;
let replica: ReplicaNode | undefined;
let flashblocks: FlashblockFeed | undefined;
let loading = true;
let load: Promise<void> | undefined;
let contract: `0x${string}`;

const devUrl = () => `${dev.url}rpc/${TEST_API_KEY}`;

before(async () => {
  nats = await startNatsServer();
  dev = await startTestDevNode({
    blockTimeMs: 250,
    flashblockIntervalMs: 50,
    nats: {
      servers: [nats.url],
      streams: {
        ...DEFAULT_STREAMS,
        prefix: PREFIX,
        // Long enough for a replica on a loaded machine to restore a snapshot and follow on
        // before the blocks after it age out (at 3 s one could fall behind for good).
        blockRetentionMs: 10_000,
        snapshotEveryBlocks: 5,
      },
    },
  });
  const sign = nonceSigner(dev, 1);
  const deployed = (await call(devUrl(), "eth_sendRawTransactionSync", [
    await sign({ gas: 200_000n, data: storageContractBytecode(keccak256(toHex("Set(uint256)"))) }),
  ])) as { contractAddress: `0x${string}` };
  contract = deployed.contractAddress;
  // Slot 0 changes and a transfer lands in most blocks, for the whole file: a pair every third
  // flashblock (150 ms), paced by the sequencer's own cadence.
  const feed = await flashblockFeed(dev.wsUrl);
  flashblocks = feed;
  load = (async () => {
    for (let n = 0; loading; n++) {
      const set = await sign({ gas: 100_000n, to: contract, data: setCalldata(BigInt(n + 1)) });
      await call(devUrl(), "eth_sendRawTransaction", [set]).catch(() => {});
      const transfer = await signTransfer(dev, 2, { nonce: n });
      await call(devUrl(), "eth_sendRawTransaction", [transfer]).catch(() => {});
      for (let f = 0; f < 3; f++) await feed.next();
    }
  })();
  // Best effort, as load: a stalled feed ends it (the comparisons then say what is missing).
  load.catch(() => {});
});

after(async () => {
  loading = false;
  await load?.catch(() => {});
  flashblocks?.close();
  await replica?.close();
  await dev?.close();
  await nats?.stop();
});

test("without a snapshot that reaches the stream's first block, a new replica says what it waits for", async () => {
  // A stream whose first block is 7, and no snapshot bucket.
  const nc = await connect({ servers: [nats.url] });
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: "BARE_BLOCKS", subjects: ["bare.blocks.>"] });
    const h = headers();
    h.set("Flashnode-Block", "7");
    await (await import("@nats-io/jetstream")).jetstream(nc).publish("bare.blocks.7", "x", {
      headers: h,
    });
  } finally {
    await nc.close();
  }
  const datadir = tempDatadir("replica-bare");
  const child = spawn(
    process.execPath,
    [
      BIN,
      "replica",
      "--nats",
      nats.url,
      "--nats-prefix",
      "bare",
      "--datadir",
      datadir,
      "--port",
      "0",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout?.on("data", (c: Buffer) => {
    output += c.toString();
  });
  try {
    await pollUntil(
      async () => output,
      (o) => o.includes("holds no snapshot"),
      30_000,
      100,
    );
    assert.match(
      output,
      /the block stream starts at block 7 and bucket BARE_SNAPSHOTS holds no snapshot: waiting for one/,
    );
  } finally {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  }
});

test("a new replica joins from a snapshot plus the stream after retention dropped the first blocks", async () => {
  const nc = await connect({ servers: [nats.url] });
  let first = 0;
  let snapshotBlock = -1;
  try {
    const jsm = await jetstreamManager(nc);
    // Retention (10 s at 4 blocks a second) has dropped block 0, and a snapshot reaches the start.
    await pollUntil(
      async () => {
        const info = await jsm.streams.info(names.blocks);
        const m = await jsm.streams.getMessage(names.blocks, { seq: info.state.first_seq });
        first = Number(m?.header.get("Flashnode-Block"));
        snapshotBlock = (await latestSnapshot(nc, names))?.block ?? -1;
        return first > 0 && snapshotBlock >= 0 && snapshotBlock + 1 >= first;
      },
      (ok) => ok,
      30_000,
      200,
    );
  } finally {
    await nc.close();
  }
  const lines: string[] = [];
  const logger = pino({ level: "info" }, { write: (s: string) => lines.push(s) });
  replica = await startReplicaNode({
    datadir: tempDatadir("replica-snapshot"),
    nats: [nats.url],
    streams: { ...DEFAULT_STREAMS, prefix: PREFIX },
    logger,
  });
  const replicaUrl = `${replica.url}rpc/${TEST_API_KEY}`;
  const restored = lines.map((l) => JSON.parse(l) as { msg: string; block?: number });
  const from = restored.find((l) => l.msg.startsWith("archive restored from a snapshot"));
  assert.ok(from !== undefined, `the replica restored a snapshot; its log:\n${lines.join("")}`);
  assert.ok(from.block! + 1 >= first, `snapshot block ${from.block} reaches the stream's ${first}`);

  // Blocks past the snapshot, which only the stream gives the replica, are compared too.
  const target = await pollUntil(
    async () => Number(await call(devUrl(), "eth_blockNumber")),
    (n) => n > from.block! + 3,
    30_000,
    50,
  );
  await pollUntil(
    async () => Number(await call(replicaUrl, "eth_blockNumber")),
    (n) => n >= target,
    30_000,
    50,
  );
  const transactions = await assertSameBlocks(devUrl(), replicaUrl, target);
  assert.ok(transactions > target, `the chain carries transactions (${transactions})`);
  for (let i = 0; i < 80; i++) {
    const block = `0x${Math.floor(Math.random() * (target + 1)).toString(16)}`;
    const [sa, sb] = await Promise.all([
      rawCall(devUrl(), "eth_getStorageAt", [contract, "0x0", block]),
      rawCall(replicaUrl, "eth_getStorageAt", [contract, "0x0", block]),
    ]);
    assert.equal(sb, sa, `slot 0 at ${block}`);
    const who = dev.accounts[i % 3]!.address;
    const [ba, bb] = await Promise.all([
      rawCall(devUrl(), "eth_getBalance", [who, block]),
      rawCall(replicaUrl, "eth_getBalance", [who, block]),
    ]);
    assert.equal(bb, ba, `balance of ${who} at ${block}`);
  }
});
