// The sequencer (`flashnode dev --nats`) SIGKILLed twice under load while a replica follows: the
// replica keeps serving what it has, and once the sequencer is back (on the same datadir) it
// republishes whatever it had committed but not published, so the replica ends up with the same
// chain, block by block: nothing lost, duplicated or reordered.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { after, before, test } from "node:test";
import { parseGwei } from "viem";
import { waitForOutput } from "../../bench/lib/http.ts";
import type { RunningNode as ReplicaNode } from "../../src/node/plan.ts";
import { DEFAULT_STREAMS } from "../../src/replica/streams.ts";
import { devSigner, flashblockFeed, pollUntil } from "../utils/devChain.ts";
import { BIN, call, tempDatadir } from "../utils/fixtures.ts";
import { type NatsServer, startNatsServer } from "../utils/nats.ts";
import { startReplicaNode } from "../utils/nodes.ts";
import { TEST_API_KEY } from "../utils/options.ts";

let nats: NatsServer;
let replica: ReplicaNode;
const devDir = tempDatadir("sequencer-crash");
type Sequencer = { child: ChildProcess; url: string; wsUrl: string };
let sequencer: Sequencer | undefined;
const sender = devSigner(4);

async function startSequencer(): Promise<Sequencer> {
  const child = spawn(
    process.execPath,
    [
      BIN,
      "dev",
      "--datadir",
      devDir,
      "--port",
      "0",
      "--rpc-workers",
      "1",
      "--api-key",
      TEST_API_KEY,
      "--rate-limit",
      "0",
      "--block-time",
      "300ms",
      "--flashblock-interval",
      "50ms",
      "--nats",
      nats.url,
      "--log-level",
      "warn",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const base = await waitForOutput(child, /JSON-RPC \(public\):\s+(\S+)/);
  return { child, url: `${base}rpc/${TEST_API_KEY}`, wsUrl: base.replace(/^http/, "ws") };
}

async function kill(): Promise<void> {
  const s = sequencer!;
  sequencer = undefined;
  const exited = new Promise((resolve) => s.child.once("exit", resolve));
  s.child.kill("SIGKILL");
  await exited;
}

/**
 * Sends a transfer per flashblock of the sequencer (its cadence paces the load), from its
 * pending nonce (a restart keeps the chain), until it has sealed `blocks` blocks and at least
 * `min` transfers went out; how many did.
 */
async function load(blocks: number, min: number): Promise<number> {
  const url = sequencer!.url;
  let nonce = Number(await call(url, "eth_getTransactionCount", [sender.address, "pending"]));
  const flashblocks = await flashblockFeed(sequencer!.wsUrl);
  const from = (await flashblocks.next()).metadata.block_number;
  let at = from;
  let sent = 0;
  while (at < from + blocks || sent < min) {
    const raw = await sender.signTransaction({
      chainId: 31337,
      type: "eip1559",
      nonce: nonce++,
      gas: 21000n,
      maxFeePerGas: parseGwei("20"),
      maxPriorityFeePerGas: 1n,
      to: sender.address,
      value: 0n,
    });
    await call(url, "eth_sendRawTransaction", [raw]);
    sent++;
    at = (await flashblocks.next()).metadata.block_number;
  }
  flashblocks.close();
  return sent;
}

const replicaUrl = () => `${replica.url}rpc/${TEST_API_KEY}`;

before(async () => {
  nats = await startNatsServer();
  sequencer = await startSequencer();
  replica = await startReplicaNode({
    datadir: tempDatadir("sequencer-crash-replica"),
    nats: [nats.url],
    streams: DEFAULT_STREAMS,
    safeDepth: 32,
    finalizedDepth: 64,
  });
});

after(async () => {
  if (sequencer !== undefined) await kill();
  await replica?.close();
  await nats?.stop();
});

test("a sequencer SIGKILLed twice under load: the replica ends with the same chain", async () => {
  let sent = 0;
  for (let round = 0; round < 2; round++) {
    // Killed with transfers in flight, five blocks into the round.
    sent += await load(5, 10);
    await kill();
    // The replica keeps answering from its archive while the sequencer is down.
    const held = Number(await call(replicaUrl(), "eth_blockNumber"));
    assert.ok(held > 0, "the replica serves its archive with the sequencer down");
    sequencer = await startSequencer();
  }
  sent += await load(2, 5);
  const url = sequencer!.url;
  const target = Number(await call(url, "eth_blockNumber"));
  await pollUntil(
    async () => Number(await call(replicaUrl(), "eth_blockNumber")),
    (n) => n >= target,
    30_000,
    50,
  );
  let transactions = 0;
  for (let n = 0; n <= target; n++) {
    const tag = `0x${n.toString(16)}`;
    const [a, b] = await Promise.all([
      call(url, "eth_getBlockReceipts", [tag]),
      call(replicaUrl(), "eth_getBlockReceipts", [tag]),
    ]);
    assert.deepEqual(b, a, `receipts of block ${n}`);
    const [ha, hb] = await Promise.all([
      call(url, "eth_getBlockByNumber", [tag, false]),
      call(replicaUrl(), "eth_getBlockByNumber", [tag, false]),
    ]);
    assert.deepEqual(hb, ha, `block ${n}`);
    transactions += (a as unknown[]).length;
  }
  assert.ok(
    transactions > 20,
    `the chain holds the load's transactions (${transactions} of ${sent})`,
  );
});
