// Faults while a replica follows a sequencer under load, each checked for nothing lost,
// duplicated or reordered (every block's receipts byte-identical to the sequencer's): a replica
// process SIGKILLed again and again; NATS stopped for a while, then back.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { after, before, test } from "node:test";
import { waitForOutput } from "../../bench/lib/http.ts";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import { DEFAULT_STREAMS } from "../../src/replica/streams.ts";
import {
  type FlashblockFeed,
  flashblockFeed,
  pollUntil,
  signTransfer,
  startTestDevNode,
  waitForBlock,
} from "../utils/devChain.ts";
import { BIN, call, tempDatadir } from "../utils/fixtures.ts";
import { type NatsServer, startNatsServer } from "../utils/nats.ts";
import { TEST_API_KEY } from "../utils/options.ts";

let nats: NatsServer;
let dev: DevNode;
let flashblocks: FlashblockFeed | undefined;
let loading = true;
let load: Promise<void> | undefined;
const replicaDir = tempDatadir("replica-faults");
let replica: { child: ChildProcess; url: string } | undefined;
/** What the replica processes logged (warnings and errors), printed when a check fails. */
let replicaOutput = "";

const devUrl = () => `${dev.url}rpc/${TEST_API_KEY}`;

async function startReplica(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [
      BIN,
      "replica",
      "--nats",
      nats.url,
      "--datadir",
      replicaDir,
      "--port",
      "0",
      "--api-key",
      TEST_API_KEY,
      "--log-level",
      "warn",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout?.on("data", (c: Buffer) => {
    replicaOutput += c.toString();
  });
  const base = await waitForOutput(child, /JSON-RPC \(public\):\s+(\S+)/);
  return { child, url: `${base}rpc/${TEST_API_KEY}` };
}

async function stopReplica(signal: NodeJS.Signals): Promise<void> {
  const r = replica;
  replica = undefined;
  if (r === undefined || r.child.exitCode !== null) return;
  const exited = new Promise((resolve) => r.child.once("exit", resolve));
  r.child.kill(signal);
  await exited;
}

/** Every block up to the sequencer's head now: receipts and header identical on the replica. */
async function assertSameChain(url: string, label: string): Promise<void> {
  const target = Number(await call(devUrl(), "eth_blockNumber"));
  await pollUntil(
    async () => Number(await call(url, "eth_blockNumber")),
    (n) => n >= target,
    30_000,
    50,
  ).catch((e: unknown) => {
    throw new Error(`${label}: ${(e as Error).message}; replica log:\n${replicaOutput}`);
  });
  let transactions = 0;
  for (let n = 0; n <= target; n++) {
    const tag = `0x${n.toString(16)}`;
    for (const method of ["eth_getBlockReceipts", "eth_getBlockByNumber"]) {
      const params = method === "eth_getBlockReceipts" ? [tag] : [tag, false];
      const [a, b] = await Promise.all([call(devUrl(), method, params), call(url, method, params)]);
      assert.deepEqual(b, a, `${label}: ${method} of block ${n}`);
      if (method === "eth_getBlockReceipts") transactions += (a as unknown[]).length;
    }
  }
  assert.ok(transactions > 0, `${label}: the chain carries transactions`);
}

before(async () => {
  nats = await startNatsServer();
  dev = await startTestDevNode({
    blockTimeMs: 300,
    flashblockIntervalMs: 50,
    nats: { servers: [nats.url], streams: DEFAULT_STREAMS },
  });
  // A transfer per flashblock (every 50 ms) for the whole file: the sequencer's cadence paces it.
  const feed = await flashblockFeed(dev.wsUrl);
  flashblocks = feed;
  load = (async () => {
    for (let nonce = 0; loading; nonce++) {
      const raw = await signTransfer(dev, 3, { nonce });
      await call(devUrl(), "eth_sendRawTransaction", [raw]).catch(() => {});
      await feed.next();
    }
  })();
  // Best effort, as load: a stalled feed ends it (the chain checks then say what is missing).
  load.catch(() => {});
});

after(async () => {
  loading = false;
  await load?.catch(() => {});
  flashblocks?.close();
  await stopReplica("SIGTERM");
  await dev?.close();
  await nats?.stop();
});

test("a replica SIGKILLed five times while following resumes each time with no gap and no duplicate", async () => {
  for (let i = 0; i < 5; i++) {
    replica = await startReplica();
    // Killed while following: once it has applied one to four more blocks (at random).
    const url = replica.url;
    const from = Number(await call(url, "eth_blockNumber"));
    await waitForBlock(url, from + 1 + Math.floor(Math.random() * 4));
    await stopReplica("SIGKILL");
  }
  replica = await startReplica();
  await assertSameChain(replica.url, "after 5 SIGKILLs");
});

test("NATS stopped while the sequencer seals four blocks: both catch up when it is back", async () => {
  replica ??= await startReplica();
  const before = Number(await call(devUrl(), "eth_blockNumber"));
  await nats.stop();
  // The sequencer keeps sealing without NATS (a sequencer that waited for it fails here).
  await waitForBlock(devUrl(), before + 4);
  await nats.restart();
  await assertSameChain(replica.url, "after the NATS outage");
});
