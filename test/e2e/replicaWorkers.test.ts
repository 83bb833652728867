// `flashnode replica --rpc-workers 2`: the primary follows the streams into the archive and two
// reader processes serve it. Both readers answer byte-identically to the sequencer (blocks,
// receipts, storage and balances at random blocks, pending once it shows the same flashblock),
// pending never goes backwards for a client whichever reader answers, transactions go to the
// sequencer from either reader with its own errors, lag is in the node's /metrics, and a killed
// reader is replaced by one that shows the same pending block at once.
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import type { Agent } from "node:http";
import { after, before, test } from "node:test";
import { keccak256, toHex } from "viem";
import { waitForOutput } from "../../bench/lib/http.ts";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import { DEFAULT_STREAMS } from "../../src/replica/streams.ts";
import {
  flashblockFeed,
  pollUntil,
  setCalldata,
  signTransfer,
  sleep,
  startTestDevNode,
  storageContractBytecode,
  waitForBlock,
} from "../utils/devChain.ts";
import { BIN, call, tempDatadir } from "../utils/fixtures.ts";
import { type NatsServer, startNatsServer } from "../utils/nats.ts";
import { TEST_API_KEY } from "../utils/options.ts";
import { stopChild } from "../utils/processes.ts";
import {
  assertPendingMonotonic,
  postOn,
  readerAgents,
  readerPids,
  rpcOn,
  waitForListeningReaders,
  waitForReplacement,
} from "../utils/readers.ts";
import { type NonceSigner, nonceSigner, waitForReplicaReady } from "../utils/replicas.ts";
import { sameWireTexts } from "../utils/wireTexts.ts";

let nats: NatsServer;
let dev: DevNode;
let replica: ChildProcess;
let replicaUrl: string;
let output = "";
let contract: `0x${string}`;
let sign: NonceSigner;
let transfers = 0;
const agents = readerAgents();

const devUrl = () => `${dev.url}rpc/${TEST_API_KEY}`;
const dedicated = () => `${replicaUrl}rpc/${TEST_API_KEY}`;

/** The raw JSON text of one call's answer (byte-identical answers are the point). */
async function raw(agent: Agent | undefined, method: string, params: unknown[]): Promise<string> {
  const body = { jsonrpc: "2.0", id: 1, method, params };
  const url = agent === undefined ? devUrl() : dedicated();
  return JSON.stringify(await postOn(url, agent, body));
}

/** The replica's child processes, for a failure's message. */
function ps(): string {
  const args = ["--ppid", String(replica.pid), "-o", "pid,stat,args"];
  return `${spawnSync("ps", args, { encoding: "utf8" }).stdout} (primary exit code ${replica.exitCode})`;
}

function onReplica(agent: Agent | undefined, method: string, params: unknown[]) {
  return rpcOn(dedicated(), agent, method, params);
}

/**
 * Reads pending on the sequencer and over each agent at once until three reads agree (both
 * readers hold the flashblock the sequencer shows), at most 300 tries; how many agreed.
 */
async function pendingAgrees(over: readonly Agent[]): Promise<number> {
  let same = 0;
  for (let i = 0; i < 300 && same < 3; i++) {
    const params = ["pending", false];
    const [a, ...others] = await Promise.all([
      raw(undefined, "eth_getBlockByNumber", params),
      ...over.map((agent) => raw(agent, "eth_getBlockByNumber", params)),
    ]);
    if (others.every((b) => b === a)) same++;
    // A poll (tries counted, not time): they agree between flashblocks; nothing tells when.
    await sleep(10);
  }
  return same;
}

async function sendSet(value: bigint): Promise<string> {
  const signed = await sign({ gas: 100_000n, to: contract, data: setCalldata(value) });
  return (await call(devUrl(), "eth_sendRawTransaction", [signed])) as string;
}

before(async () => {
  nats = await startNatsServer();
  dev = await startTestDevNode({
    blockTimeMs: 400,
    flashblockIntervalMs: 50,
    safeDepth: 2,
    finalizedDepth: 4,
    nats: { servers: [nats.url], streams: DEFAULT_STREAMS },
  });
  sign = nonceSigner(dev, 1);
  const deploy = await sign({
    gas: 200_000n,
    data: storageContractBytecode(keccak256(toHex("Set(uint256)"))),
  });
  const receipt = (await call(devUrl(), "eth_sendRawTransactionSync", [deploy])) as {
    contractAddress: `0x${string}`;
  };
  contract = receipt.contractAddress;
  for (let i = 0; i < 8; i++) {
    await sendSet(BigInt(i + 1));
    await call(devUrl(), "eth_sendRawTransaction", [
      await signTransfer(dev, 2, { nonce: transfers++ }),
    ]);
    // Two rounds a block: a history of several blocks for the replica to catch up on.
    if (i % 2 === 1)
      await waitForBlock(devUrl(), Number(await call(devUrl(), "eth_blockNumber")) + 1);
  }
  replica = spawn(
    process.execPath,
    [
      BIN,
      "replica",
      "--nats",
      nats.url,
      "--datadir",
      tempDatadir("replica-workers"),
      "--port",
      "0",
      "--rpc-workers",
      "2",
      "--api-key",
      TEST_API_KEY,
      "--log-level",
      "warn",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  for (const s of [replica.stdout, replica.stderr])
    s?.on("data", (c: Buffer) => {
      output += c.toString();
    });
  replicaUrl = await waitForOutput(replica, /JSON-RPC \(public\):\s+(\S+)/);
});

after(async () => {
  for (const a of agents) a.destroy();
  await stopChild(replica);
  await dev?.close();
  await nats?.stop();
});

test("two readers serve the replica, and both answer byte-identically to the sequencer", async () => {
  const pids = await pollUntil(
    async () => readerPids(replica.pid!),
    (p) => p.length === 2,
    30_000,
  ).catch(() => readerPids(replica.pid!));
  assert.equal(pids.length, 2, `reader processes:\n${ps()}\n${output}`);
  const target = Number(await call(devUrl(), "eth_blockNumber"));
  for (const agent of agents)
    await pollUntil(
      async () => Number(await onReplica(agent, "eth_blockNumber", [])),
      (n) => n >= target,
      30_000,
    );
  for (let n = 0; n <= target; n++) {
    const tag = `0x${n.toString(16)}`;
    for (const [method, params] of [
      ["eth_getBlockReceipts", [tag]],
      ["eth_getBlockByNumber", [tag, true]],
    ] as const) {
      const [a, b, c] = await Promise.all([
        raw(undefined, method, [...params]),
        ...agents.map((agent) => raw(agent, method, [...params])),
      ]);
      assert.equal(b, a, `${method} of block ${n}, first reader`);
      assert.equal(c, a, `${method} of block ${n}, second reader`);
    }
  }
  const holders = [dev.accounts[1]!.address, dev.accounts[2]!.address, contract];
  for (let i = 0; i < 40; i++) {
    const block = `0x${Math.floor(Math.random() * (target + 1)).toString(16)}`;
    const who = holders[i % holders.length]!;
    for (const [method, params] of [
      ["eth_getStorageAt", [contract, "0x0", block]],
      ["eth_getStorageValues", [{ [contract]: ["0x0", "0x1"] }, block]],
      ["eth_getBalance", [who, block]],
    ] as const) {
      const [a, b, c] = await Promise.all([
        raw(undefined, method, [...params]),
        ...agents.map((agent) => raw(agent, method, [...params])),
      ]);
      assert.equal(b, a, `${method} ${JSON.stringify(params)}, first reader`);
      assert.equal(c, a, `${method} ${JSON.stringify(params)}, second reader`);
    }
  }
  // The node's /metrics carries the lag the primary measures, and it says it is ready.
  await waitForReplicaReady(replicaUrl);
});

/** An answer with its error message cut before a parenthesised hint. */
function withoutHint(answer: unknown): unknown {
  const a = answer as { error?: { code: number; message: string } };
  if (a.error === undefined) return answer;
  return { ...a, error: { ...a.error, message: a.error.message.split(" (")[0] } };
}

test("transactions through either reader run on the sequencer, with its errors", async () => {
  for (const agent of agents) {
    const signed = await signTransfer(dev, 2, { nonce: transfers++ });
    const hash = (await onReplica(agent, "eth_sendRawTransaction", [signed])) as string;
    const receipt = (await pollUntil(
      () => call(devUrl(), "eth_getTransactionReceipt", [hash]),
      (r) => r !== null,
      30_000,
    )) as { status: string };
    assert.equal(receipt.status, "0x1");
    // Replayed: the sequencer's own refusal, code and message, comes back through the reader.
    const again = { jsonrpc: "2.0", id: 1, method: "eth_sendRawTransaction", params: [signed] };
    const [direct, relayed] = await Promise.all([
      postOn(devUrl(), undefined, again),
      postOn(dedicated(), agent, again),
    ]);
    assert.ok((direct as { error?: unknown }).error !== undefined, "the sequencer refuses it");
    // The refusal's hint ("a pre-confirmed transaction uses it…") holds only until the block
    // seals, which may fall between the two answers (400-ms blocks): compared without it.
    assert.deepEqual(withoutHint(relayed), withoutHint(direct));
  }
});

test("pending matches the sequencer's and never goes backwards, whichever reader answers", async () => {
  let sending = true;
  let sent = 0;
  const flashblocks = await flashblockFeed(dev.wsUrl);
  const sender = (async () => {
    while (sending) {
      await sendSet(BigInt(1000 + sent++));
      // One transaction per flashblock of the sequencer: its cadence paces the load.
      await flashblocks.next();
    }
  })();
  // Reads alternate between the readers while transactions arrive, until 20 were sent.
  const { reads, first, last } = await assertPendingMonotonic(
    (i) => onReplica(agents[i % 2], "eth_getBlockByNumber", ["pending", false]),
    (n) => n >= 50 && sent >= 20,
  );
  sending = false;
  await sender;
  flashblocks.close();
  assert.ok(last > first, `${reads} reads saw pending go from ${first} to ${last}: no seal?`);
  assert.equal(await pendingAgrees(agents), 3, "both readers showed the sequencer's pending block");
});

test("each reader's /flashblocks serves the sequencer's messages byte for byte", async () => {
  // The primary renders the wire message once and hands it to its readers with the laid-out
  // diff (the readers no longer have the accounts it lists); NATS carries no JSON.
  const feed = await flashblockFeed(dev.wsUrl);
  let value = 7000n;
  const { source, replica: served } = await sameWireTexts(
    dev.wsUrl,
    replicaUrl.replace(/^http/, "ws"),
    4,
    async () => {
      await sendSet(value++);
      await feed.next();
    },
  );
  feed.close();
  assert.deepEqual(served, source);
});

test("a killed reader is replaced, and shows the pending block at once", async () => {
  const hash = await sendSet(4242n);
  // The replica has it (pre-confirmed, or sealed already) before the kill.
  await pollUntil(
    () => onReplica(undefined, "eth_getTransactionReceipt", [hash]),
    (r) => r !== null,
  );
  const before = readerPids(replica.pid!);
  process.kill(before[0]!, "SIGKILL");
  const now = await waitForReplacement(replica.pid!, before[0]!, 2, 30_000);
  assert.equal(now.length, 2, `two readers again:\n${ps()}\n${output}`);
  // Until the replacement listens, fresh connections reach the survivor only.
  await waitForListeningReaders(dedicated(), 2);
  const fresh = readerAgents();
  assert.equal(await pendingAgrees(fresh), 3, "both readers show the sequencer's pending block");
  for (const a of fresh) a.destroy();
});
