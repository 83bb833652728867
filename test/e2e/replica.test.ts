// `flashnode replica` follows `flashnode dev --nats` through a real nats-server (JetStream): it
// answers byte-identically to the sequencer (every block's receipts and header, storage and
// balances at random blocks, and pending once both show the same flashblock), forwards
// transactions to the sequencer, and resumes after a restart with no gap and no duplicate.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { keccak256, parseGwei, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { RunningNode as DevNode, RunningNode as ReplicaNode } from "../../src/node/plan.ts";
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
import { call, rpc, tempDatadir } from "../utils/fixtures.ts";
import { type NatsServer, startNatsServer } from "../utils/nats.ts";
import { startReplicaNode } from "../utils/nodes.ts";
import { TEST_API_KEY } from "../utils/options.ts";
import { waitForReplicaReady } from "../utils/replicas.ts";
import { sameWireTexts } from "../utils/wireTexts.ts";

let nats: NatsServer;
let dev: DevNode;
let replica: ReplicaNode | undefined;
const replicaDir = tempDatadir("replica");
let contract: string;

const devUrl = () => `${dev.url}rpc/${TEST_API_KEY}`;
const replicaUrl = () => `${replica!.url}rpc/${TEST_API_KEY}`;

function startReplica(): Promise<ReplicaNode> {
  return startReplicaNode({
    datadir: replicaDir,
    nats: [nats.url],
    streams: DEFAULT_STREAMS,
  });
}

/** The raw JSON text of one call: byte-identical answers are the point. */
async function raw(url: string, method: string, params: unknown[]): Promise<string> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return res.text();
}

/** Blocks 0..to answer byte-identically on both nodes for each of `methods`. */
async function assertSameBlocks(to: number, methods: readonly string[]): Promise<void> {
  for (let n = 0; n <= to; n++) {
    const tag = `0x${n.toString(16)}`;
    for (const method of methods) {
      const params = method === "eth_getBlockReceipts" ? [tag] : [tag, true];
      const [a, b] = await Promise.all([
        raw(devUrl(), method, params),
        raw(replicaUrl(), method, params),
      ]);
      assert.equal(b, a, `${method} at block ${n}`);
    }
  }
}

async function head(url: string): Promise<number> {
  return Number(await call(url, "eth_blockNumber"));
}

let nonce = 0;
/** Dev account 1's next transaction: a deployment (no `to`) or a call. */
function signNext(tx: { gas: bigint; data: `0x${string}`; to?: string }): Promise<`0x${string}`> {
  const account = privateKeyToAccount(dev.accounts[1]!.privateKey as `0x${string}`);
  return account.signTransaction({
    chainId: Number(dev.chainId),
    type: "eip1559",
    nonce: nonce++,
    gas: tx.gas,
    maxFeePerGas: parseGwei("20"),
    maxPriorityFeePerGas: 1n,
    ...(tx.to === undefined ? {} : { to: tx.to as `0x${string}` }),
    data: tx.data,
  });
}

async function sendSet(url: string, value: bigint): Promise<string> {
  const signed = await signNext({ gas: 100_000n, to: contract, data: setCalldata(value) });
  return (await call(url, "eth_sendRawTransaction", [signed])) as string;
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
  // A contract whose slot 0 changes in many blocks, and transfers in between.
  const deploy = await signNext({
    gas: 200_000n,
    data: storageContractBytecode(keccak256(toHex("Set(uint256)"))),
  });
  const hash = (await call(devUrl(), "eth_sendRawTransactionSync", [deploy])) as {
    contractAddress: string;
  };
  contract = hash.contractAddress;
  for (let i = 0; i < 12; i++) {
    await sendSet(devUrl(), BigInt(i + 1));
    await call(devUrl(), "eth_sendRawTransaction", [await signTransfer(dev, 2, { nonce: i })]);
    // Three rounds a block: slot 0 changes in four blocks at least.
    if (i % 3 === 2) await waitForBlock(devUrl(), (await head(devUrl())) + 1);
  }
});

after(async () => {
  await replica?.close();
  await dev?.close();
  await nats?.stop();
});

test("a new replica catches up from block 0 and answers byte-identically", async () => {
  replica = await startReplica();
  const target = await head(devUrl());
  await pollUntil(
    () => head(replicaUrl()),
    (n) => n >= target,
    30_000,
  );
  await assertSameBlocks(target, ["eth_getBlockReceipts", "eth_getBlockByNumber"]);
  // Caught up: the lag it reports is small and it says it is ready.
  await waitForReplicaReady(replica!.url);
  const holders = [dev.accounts[1]!.address, dev.accounts[2]!.address, contract];
  for (let i = 0; i < 60; i++) {
    const block = `0x${Math.floor(Math.random() * (target + 1)).toString(16)}`;
    const who = holders[i % holders.length]!;
    const [sa, sb] = await Promise.all([
      raw(devUrl(), "eth_getStorageAt", [contract, "0x0", block]),
      raw(replicaUrl(), "eth_getStorageAt", [contract, "0x0", block]),
    ]);
    assert.equal(sb, sa, `slot 0 at ${block}`);
    const [ba, bb] = await Promise.all([
      raw(devUrl(), "eth_getBalance", [who, block]),
      raw(replicaUrl(), "eth_getBalance", [who, block]),
    ]);
    assert.equal(bb, ba, `balance of ${who} at ${block}`);
  }
});

test("transactions sent to the replica run on the sequencer; pending matches once both show a flashblock", async () => {
  const sent = await sendSet(replicaUrl(), 777n);
  const onSequencer = await pollUntil(
    () => call(devUrl(), "eth_getTransactionByHash", [sent]),
    (t) => t !== null,
    30_000,
  );
  assert.equal((onSequencer as { hash: string }).hash, sent);
  // The replica sees it too, pre-confirmed or sealed, with the same receipt.
  const receipt = await pollUntil(
    () => raw(replicaUrl(), "eth_getTransactionReceipt", [sent]),
    (r) => !r.includes('"result":null'),
    30_000,
  );
  assert.match(receipt, /"status":"0x1"/);
  // The replica serves the live page, with the sequencer's own pre-confirmation times (they
  // travel in the stream).
  const page = await fetch(`${replica!.url}ui`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<title>flashnode: live flashblocks<\/title>/);
  const times = (await call(replicaUrl(), "flashnode_getTransactionTimes", [sent])) as {
    receivedAt: number | null;
    preconfirmedAt: number;
  } | null;
  assert.ok(times !== null && times.receivedAt !== null, JSON.stringify(times));
  assert.ok(times.preconfirmedAt >= times.receivedAt);
  // A bad transaction gets the sequencer's own error.
  const bad = (await rpc(replicaUrl(), {
    jsonrpc: "2.0",
    id: 1,
    method: "eth_sendRawTransaction",
    params: ["0x1234"],
  })) as { error?: { code: number; message: string } };
  const direct = (await rpc(devUrl(), {
    jsonrpc: "2.0",
    id: 1,
    method: "eth_sendRawTransaction",
    params: ["0x1234"],
  })) as { error?: { code: number; message: string } };
  assert.deepEqual(bad.error, direct.error);
  // Pending: the same block as the sequencer's once both show the same flashblock.
  let same = 0;
  for (let i = 0; i < 200 && same < 3; i++) {
    const [a, b] = await Promise.all([
      raw(devUrl(), "eth_getBlockByNumber", ["pending", false]),
      raw(replicaUrl(), "eth_getBlockByNumber", ["pending", false]),
    ]);
    if (a === b && a.includes('"number"')) same++;
    // A poll (tries counted, not time): the two agree between flashblocks, once the replica
    // has the sequencer's newest; nothing tells when that is.
    await sleep(10);
  }
  assert.ok(same >= 3, "the replica's pending block equals the sequencer's");
});

test("the replica's /flashblocks serves the sequencer's messages byte for byte (it renders them)", async () => {
  // The stream carries no JSON since flashnode-v8/2: the replica renders Base's wire message
  // from the update (receipts with logs, balances, the ids the update carries).
  const feed = await flashblockFeed(dev.wsUrl);
  let value = 5000n;
  const { source, replica: served } = await sameWireTexts(
    dev.wsUrl,
    replica!.wsUrl,
    4,
    async () => {
      await sendSet(devUrl(), value++);
      await feed.next();
    },
  );
  feed.close();
  assert.ok(
    source.some((t) => t.includes('"logs":[{')),
    "a flashblock with a log compared",
  );
  assert.deepEqual(served, source);
});

test("a restarted replica resumes where its archive stopped: no gap, no duplicate", async () => {
  await replica!.close();
  replica = undefined;
  // While it is down: a transaction, then a seal after it, five times.
  for (let i = 0; i < 5; i++) {
    await sendSet(devUrl(), 1000n + BigInt(i));
    await waitForBlock(devUrl(), (await head(devUrl())) + 1);
  }
  replica = await startReplica();
  const target = await head(devUrl());
  await pollUntil(
    () => head(replicaUrl()),
    (n) => n >= target,
    30_000,
  );
  await assertSameBlocks(target, ["eth_getBlockReceipts"]);
  assert.equal(
    await raw(replicaUrl(), "eth_getStorageAt", [contract, "0x0", "latest"]).then((r) =>
      r.replace(/"id":\d+,/, ""),
    ),
    await raw(devUrl(), "eth_getStorageAt", [contract, "0x0", `0x${target.toString(16)}`]).then(
      (r) => r.replace(/"id":\d+,/, ""),
    ),
  );
});
