// `flashnode replica --verify` executes every block from the stream with the EVM before storing
// it: a verifying replica of a live sequencer stores what its own execution produced and still
// answers byte-identically; one fed a block whose header claims a wrong state root refuses it and
// stays on the block before.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { RLP } from "@ethereumjs/rlp";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect, headers } from "@nats-io/transport-node";
import pino from "pino";
import { keccak256, toHex } from "viem";
import type { RunningNode as DevNode, RunningNode as ReplicaNode } from "../../src/node/plan.ts";
import { decodeBlockMessage, encodeBlockMessage, FORMAT } from "../../src/replica/codec.ts";
import { DEFAULT_STREAMS, HEADER, streamNames } from "../../src/replica/streams.ts";
import { keccak256 as keccakBytes } from "../../src/util/crypto.ts";
import {
  pollUntil,
  setCalldata,
  signTransfer,
  startTestDevNode,
  storageContractBytecode,
  waitForBlock,
} from "../utils/devChain.ts";
import { call, tempDatadir } from "../utils/fixtures.ts";
import { type NatsServer, startNatsServer } from "../utils/nats.ts";
import { type ReplicaNodeOptions, startReplicaNode } from "../utils/nodes.ts";
import { TEST_API_KEY, testFrontendOptions } from "../utils/options.ts";
import { assertSameBlocks, nonceSigner, rawCall } from "../utils/replicas.ts";

let nats: NatsServer;
let dev: DevNode;
const replicas: ReplicaNode[] = [];
let contract: `0x${string}`;

const devUrl = () => `${dev.url}rpc/${TEST_API_KEY}`;

function replicaOptions(prefix: string, lines: string[]): ReplicaNodeOptions {
  return {
    datadir: tempDatadir("replica-verify"),
    nats: [nats.url],
    streams: { ...DEFAULT_STREAMS, prefix },
    frontend: testFrontendOptions(),
    // Debug: each retry of the block stream is a line the tests can wait for.
    logger: pino({ level: "debug" }, { write: (s: string) => lines.push(s) }),
    flashblockIntervalMs: 50,
    safeDepth: 2,
    finalizedDepth: 4,
    maxLagBlocks: 10,
    verify: true,
  };
}

before(async () => {
  nats = await startNatsServer();
  dev = await startTestDevNode({
    blockTimeMs: 300,
    flashblockIntervalMs: 50,
    nats: { servers: [nats.url], streams: DEFAULT_STREAMS },
  });
  const sign = nonceSigner(dev, 1);
  const deployed = (await call(devUrl(), "eth_sendRawTransactionSync", [
    await sign({ gas: 200_000n, data: storageContractBytecode(keccak256(toHex("Set(uint256)"))) }),
  ])) as { contractAddress: `0x${string}` };
  contract = deployed.contractAddress;
  for (let i = 0; i < 10; i++) {
    await call(devUrl(), "eth_sendRawTransaction", [
      await sign({ gas: 100_000n, to: contract, data: setCalldata(BigInt(i + 1)) }),
    ]);
    await call(devUrl(), "eth_sendRawTransaction", [await signTransfer(dev, 2, { nonce: i })]);
    // Two rounds a block: transactions in five blocks at least.
    if (i % 2 === 1)
      await waitForBlock(devUrl(), Number(await call(devUrl(), "eth_blockNumber")) + 1);
  }
});

after(async () => {
  for (const r of replicas) await r.close();
  await dev?.close();
  await nats?.stop();
});

test("a verifying replica executes every block and answers byte-identically", async () => {
  const lines: string[] = [];
  const replica = await startReplicaNode(replicaOptions("flashnode", lines));
  replicas.push(replica);
  const url = `${replica.url}rpc/${TEST_API_KEY}`;
  const target = Number(await call(devUrl(), "eth_blockNumber"));
  await pollUntil(
    async () => Number(await call(url, "eth_blockNumber")),
    (n) => n >= target,
    30_000,
    50,
  ).catch((e: unknown) => {
    throw new Error(`${(e as Error).message}; replica log:\n${lines.join("")}`);
  });
  const transactions = await assertSameBlocks(devUrl(), url, target);
  for (let n = 0; n <= target; n++) {
    const tag = `0x${n.toString(16)}`;
    const [sa, sb] = await Promise.all([
      rawCall(devUrl(), "eth_getStorageAt", [contract, "0x0", tag]),
      rawCall(url, "eth_getStorageAt", [contract, "0x0", tag]),
    ]);
    assert.equal(sb, sa, `slot 0 at block ${n}`);
  }
  assert.ok(transactions >= 20, `the chain carries the transactions (${transactions})`);
});

test("a verifying replica refuses a block whose header claims another state root", async () => {
  // Blocks 0..k of the sequencer's stream into another stream, block k with its state root
  // changed (and so its hash: it still names block k-1 as its parent).
  const names = streamNames("flashnode");
  const tampered = streamNames("tampered");
  const nc = await connect({ servers: [nats.url] });
  let k = 0;
  try {
    const jsm = await jetstreamManager(nc);
    const js = jetstream(nc);
    await jsm.streams.add({ name: tampered.blocks, subjects: [tampered.blockSubjects] });
    k = Math.min(5, Number(await call(devUrl(), "eth_blockNumber")));
    for (let n = 0; n <= k; n++) {
      const m = await jsm.streams.getMessage(names.blocks, {
        last_by_subj: names.blockSubject(n),
      });
      assert.ok(m !== null && m !== undefined, `block ${n} is in the stream`);
      let block = decodeBlockMessage(m.data, m.header.get(HEADER.format));
      if (n === k) {
        const fields = RLP.decode(block.headerRlp) as Uint8Array[];
        fields[3] = new Uint8Array(32).fill(0x11);
        const headerRlp = RLP.encode(fields);
        block = { ...block, headerRlp, hash: keccakBytes(headerRlp) };
      }
      const h = headers();
      h.set(HEADER.format, FORMAT);
      h.set(HEADER.block, String(n));
      await js.publish(tampered.blockSubject(n), encodeBlockMessage(block), { headers: h });
    }
  } finally {
    await nc.close();
  }
  const lines: string[] = [];
  const replica = await startReplicaNode(replicaOptions("tampered", lines));
  replicas.push(replica);
  const url = `${replica.url}rpc/${TEST_API_KEY}`;
  // Refused, and refused again by a retry (a debug line): the replica stays before block k.
  await pollUntil(
    async () => lines.join(""),
    (log) => log.includes("refused by --verify") && log.includes("failed again"),
    60_000,
    50,
  );
  assert.equal(Number(await call(url, "eth_blockNumber")), k - 1, "the replica stays before it");
  const refusal = lines
    .map((l) => JSON.parse(l) as { err?: { message: string } })
    .find((l) => l.err?.message.includes("refused by --verify"));
  assert.match(
    refusal?.err?.message ?? "",
    new RegExp(`^block ${k} \\(0x[0-9a-f]{64}\\) refused by --verify: .*state root mismatch`),
  );
  // Said once (at error), not once per retry (those are at debug).
  const said = lines.filter((l) => l.includes("refused by --verify"));
  assert.equal(said.filter((l) => (JSON.parse(l) as { level: number }).level > 20).length, 1);
  assert.ok(said.length >= 2, "retried");
});
