// A forked chain's NATS replica: `dev --fork-url` (anvil upstream) publishes to JetStream, and a
// `replica --fork-url` of it starts its archive at the fork block F from the block stream, then
// answers as the sequencer does — state the fork wrote, state it never wrote (the upstream's at
// F), and pending.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { RunningNode } from "../../src/node/plan.ts";
import { DEFAULT_STREAMS } from "../../src/replica/streams.ts";
import { upstreamOptions } from "../../src/upstream/options.ts";
import {
  type Anvil,
  RECEIVER,
  type SeededChain,
  seedChain,
  startAnvilUpstream,
  word,
} from "../utils/anvilUpstream.ts";
import { devSigner, pollUntil, signAtPendingNonce, startTestDevNode } from "../utils/devChain.ts";
import { call, tempDatadir } from "../utils/fixtures.ts";
import { type NatsServer, startNatsServer } from "../utils/nats.ts";
import { startReplicaNode } from "../utils/nodes.ts";

let anvil: Anvil;
let chain: SeededChain;
let nats: NatsServer;
let dev: RunningNode;
let replica: RunningNode;
const account = devSigner();

before(async () => {
  anvil = await startAnvilUpstream();
  chain = await seedChain(anvil);
  nats = await startNatsServer();
  dev = await startTestDevNode({
    datadir: tempDatadir("fork-replica-dev"),
    blockTimeMs: 1_000,
    flashblockIntervalMs: 100,
    upstream: { options: upstreamOptions(anvil.url), blockNumber: chain.fork.number },
    nats: { servers: [nats.url], streams: DEFAULT_STREAMS },
  });
  replica = await startReplicaNode({
    datadir: tempDatadir("fork-replica"),
    nats: [nats.url],
    streams: DEFAULT_STREAMS,
    flashblockIntervalMs: 100,
    forkUpstream: anvil.url,
  });
});

after(async () => {
  await replica?.close();
  await dev?.close();
  await nats?.stop();
  anvil?.stop();
});

test("the replica starts at the fork block and answers as the forked sequencer does", async () => {
  const raw = await signAtPendingNonce(dev.url, account, {
    chainId: 31337,
    gas: 100_000n,
    to: chain.contract as `0x${string}`,
    data: `0x${word(4n).slice(2)}${word(44n).slice(2)}`,
  });
  const receipt = (await call(dev.url, "eth_sendRawTransactionSync", [raw])) as {
    blockNumber: string;
  };
  const sealed = Number(receipt.blockNumber);
  await pollUntil(
    async () => Number(await call(replica.url, "eth_blockNumber")),
    (n) => n >= sealed,
    30_000,
  );
  const at = `0x${sealed.toString(16)}`;
  for (const [method, params] of [
    ["eth_getStorageAt", [chain.contract, word(4n), at]],
    ["eth_getStorageAt", [chain.contract, word(3n), at]],
    ["eth_getBalance", [RECEIVER, at]],
    ["eth_getBalance", [account.address, at]],
    ["eth_getCode", [chain.contract, at]],
    ["eth_getBlockByNumber", [at, true]],
    ["eth_getBlockReceipts", [at]],
  ] as const)
    assert.deepEqual(
      await call(replica.dedicatedUrl, method, [...params]),
      await call(dev.dedicatedUrl, method, [...params]),
      `${method} ${JSON.stringify(params)}`,
    );
  assert.equal(
    BigInt(String(await call(replica.url, "eth_getStorageAt", [chain.contract, word(4n), at]))),
    44n,
  );
  assert.equal(
    BigInt(String(await call(replica.url, "eth_getStorageAt", [chain.contract, word(3n), at]))),
    300n,
  );
  // The fork's past is the upstream's, through the replica too.
  const F = `0x${chain.fork.number.toString(16)}`;
  assert.deepEqual(
    await call(replica.dedicatedUrl, "eth_getBlockByNumber", [F, false]),
    await anvil.rpc("eth_getBlockByNumber", [F, false]),
  );
});
