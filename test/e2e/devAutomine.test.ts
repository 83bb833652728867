// `flashnode dev --automine` (and --block-time 0): a block per transaction, sealed as soon as its
// flashblock is, so scripts written for anvil run unchanged (two plain `cast send` in a row);
// evm_setAutomine, anvil_getAutomine, evm_setIntervalMining and anvil_getIntervalMining switch
// the mode at run time, as anvil's do.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, test } from "node:test";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import { CAST, cast } from "../utils/cast.ts";
import { pollUntil, signTransfer, startTestDevNode } from "../utils/devChain.ts";
import { rpcCaller } from "../utils/fixtures.ts";

let node: DevNode;
const X = "0x1000000000000000000000000000000000000001";

const rpc = rpcCaller(() => node.dedicatedUrl);
const head = async () => Number(await rpc<string>("eth_blockNumber"));
const receipt = (hash: string) =>
  rpc<{ blockNumber: string; blockHash: string; status: string } | null>(
    "eth_getTransactionReceipt",
    [hash],
  );

before(async () => {
  node = await startTestDevNode({ blockTimeMs: 0, flashblockIntervalMs: 50 });
});
after(async () => {
  await node.close();
});

test("--block-time 0 is automine: a block per transaction, in latest when the send answers", async () => {
  assert.equal(await rpc("anvil_getAutomine"), true);
  assert.equal(await rpc("hardhat_getAutomine"), true);
  assert.equal(await rpc("anvil_getIntervalMining"), null);
  const start = await head();
  const hashes: string[] = [];
  for (let nonce = 0; nonce < 3; nonce++) {
    const hash = await rpc<string>("eth_sendRawTransaction", [
      await signTransfer(node, 3, { nonce, to: X, value: 1n }),
    ]);
    hashes.push(hash);
    // Sealed before the answer: latest holds it, with a sealed receipt.
    assert.equal(await head(), start + nonce + 1);
    const r = await receipt(hash);
    assert.equal(Number(r?.blockNumber), start + nonce + 1);
    assert.doesNotMatch(r!.blockHash, /^0x0+$/);
  }
  assert.equal(BigInt(await rpc<string>("eth_getBalance", [X, "latest"])), 3n);
  // Idle: no block without a transaction (flashblocks go on).
  const idle = await head();
  const pending = await rpc<{ number: string }>("eth_getBlockByNumber", ["pending", false]);
  assert.equal(Number(pending.number), idle + 1);
  assert.equal(await head(), idle);
});

test("two plain cast send in a row: the second takes its nonce at latest and succeeds", {
  skip: existsSync(CAST) ? false : "cast binary not installed",
}, async () => {
  const key = node.accounts[2]!.privateKey;
  const send = async (value: string) =>
    JSON.parse(
      await cast(
        "send",
        "--rpc-url",
        node.dedicatedUrl,
        "--private-key",
        key,
        "--json",
        X,
        "--value",
        value,
      ),
    ) as { blockNumber: string; status: string };
  const first = await send("7");
  const second = await send("8");
  assert.equal(first.status, "0x1");
  assert.equal(second.status, "0x1");
  assert.equal(Number(second.blockNumber), Number(first.blockNumber) + 1);
  assert.equal(await cast("nonce", "--rpc-url", node.dedicatedUrl, node.accounts[2]!.address), "2");
});

test("with automine a state write is in latest when it answers, in a block of its own", async () => {
  const before = await head();
  const Y = "0x2000000000000000000000000000000000000002";
  assert.equal(await rpc("anvil_setBalance", [Y, "0x1234"]), null);
  assert.equal(await rpc("eth_getBalance", [Y, "latest"]), "0x1234");
  assert.equal(await head(), before + 1);
});

test("evm_setAutomine(false): transactions wait pre-confirmed until evm_mine; true seals them", async () => {
  assert.equal(await rpc("evm_setAutomine", [false]), null);
  assert.equal(await rpc("anvil_getAutomine"), false);
  // No mining at all after automine (anvil's): not even interval mining.
  assert.equal(await rpc("anvil_getIntervalMining"), null);
  const start = await head();
  const nonce = Number(
    await rpc<string>("eth_getTransactionCount", [node.accounts[4]!.address, "pending"]),
  );
  const hash = await rpc<string>("eth_sendRawTransaction", [
    await signTransfer(node, 4, { nonce, to: X, value: 1n }),
  ]);
  const pre = await pollUntil(
    () => receipt(hash),
    (r) => r !== null,
  );
  assert.match(pre!.blockHash, /^0x0+$/, "pre-confirmed, not sealed");
  assert.equal(await head(), start);
  // Switching automine on seals what is pre-confirmed.
  assert.equal(await rpc("anvil_setAutomine", [true]), null);
  assert.equal(await head(), start + 1);
  assert.doesNotMatch((await receipt(hash))!.blockHash, /^0x0+$/);
});

test("evm_setIntervalMining(n): a block every n seconds; 0 stops mining", async () => {
  assert.equal(await rpc("evm_setIntervalMining", [1]), null);
  assert.equal(await rpc("anvil_getIntervalMining"), 1);
  assert.equal(await rpc("anvil_getAutomine"), false);
  const start = await head();
  // Empty blocks come by themselves now, a second apart.
  await pollUntil(head, (n) => n >= start + 2, 10_000, 50);
  const ts = async (n: number) =>
    BigInt(
      (await rpc<{ timestamp: string }>("eth_getBlockByNumber", [`0x${n.toString(16)}`, false]))
        .timestamp,
    );
  assert.ok((await ts(start + 2)) > (await ts(start + 1)));
  assert.equal(await rpc("anvil_setIntervalMining", [0]), null);
  assert.equal(await rpc("anvil_getIntervalMining"), null);
  // Stopped: a transaction stays pre-confirmed; evm_mine seals it.
  const stopped = await head();
  const nonce = Number(
    await rpc<string>("eth_getTransactionCount", [node.accounts[5]!.address, "pending"]),
  );
  const hash = await rpc<string>("eth_sendRawTransaction", [
    await signTransfer(node, 5, { nonce, to: X, value: 1n }),
  ]);
  await pollUntil(
    () => receipt(hash),
    (r) => r !== null,
  );
  assert.equal(await head(), stopped);
  await rpc("evm_mine");
  assert.equal(await head(), stopped + 1);
  assert.equal(Number((await receipt(hash))!.blockNumber), stopped + 1);
  await rpc("evm_setAutomine", [true]);
});

test("eth_sendUnsignedTransaction: runs as its `from`'s without a key, that once", async () => {
  const Y = "0x3000000000000000000000000000000000000003";
  await rpc("anvil_setBalance", [Y, "0xde0b6b3a7640000"]);
  const hash = await rpc<string>("eth_sendUnsignedTransaction", [{ from: Y, to: X, value: "0x5" }]);
  const r = await receipt(hash);
  assert.equal((r as { from?: string } | null)?.from, Y);
  assert.equal((r as { status?: string } | null)?.status, "0x1");
  assert.equal(await rpc("eth_getTransactionCount", [Y, "latest"]), "0x1");
  // Not impersonated for anything else.
  await assert.rejects(
    rpc("eth_sendTransaction", [{ from: Y, to: X, value: "0x1" }]),
    /No Signer available/,
  );
  await assert.rejects(rpc("eth_sendUnsignedTransaction", [{ to: X }]), /No Signer available/);
});

test("anvil_nodeInfo and anvil_metadata describe this chain", async () => {
  const latest = await rpc<{ number: string; hash: string; timestamp: string }>(
    "eth_getBlockByNumber",
    ["latest", false],
  );
  const info = await rpc<Record<string, unknown>>("anvil_nodeInfo");
  assert.equal(info.currentBlockNumber, latest.number);
  assert.equal(info.currentBlockHash, latest.hash);
  assert.equal(info.currentBlockTimestamp, Number(latest.timestamp));
  assert.equal(info.hardFork, "Osaka");
  assert.equal(info.transactionOrder, "fifo");
  const env = info.environment as Record<string, unknown>;
  assert.equal(env.chainId, 31337);
  assert.equal(
    env.baseFee,
    (await rpc<{ baseFeePerGas: string }>("eth_getBlockByNumber", ["pending", false]))
      .baseFeePerGas,
  );
  const id = await rpc<string>("evm_snapshot");
  const meta = await rpc<Record<string, unknown>>("anvil_metadata");
  assert.match(meta.clientVersion as string, /^anvil-compatible\/flashnode\/v/);
  assert.equal(meta.clientVersion, await rpc("web3_clientVersion"));
  assert.equal(meta.latestBlockNumber, Number(latest.number));
  assert.match(meta.instanceId as string, /^0x[0-9a-f]{64}$/);
  assert.deepEqual((meta.snapshots as Record<string, unknown>)[id], [
    Number(latest.number),
    latest.hash,
  ]);
  // The same run, the same instance.
  assert.equal((await rpc<Record<string, unknown>>("anvil_metadata")).instanceId, meta.instanceId);
});

test("a deposit with automine: in latest when flashnode_depositTransaction answers", async () => {
  const to = "0x4000000000000000000000000000000000000004";
  const start = await head();
  const hash = await rpc<string>("flashnode_depositTransaction", [
    {
      from: "0x4000000000000000000000000000000000000009",
      to,
      mint: "0x100",
      value: "0x10",
      gas: "0x186a0",
    },
  ]);
  // A deposit runs at a block's start: the block being built is sealed, then the deposit's own.
  assert.equal(await head(), start + 2);
  assert.equal(Number((await receipt(hash))!.blockNumber), start + 2);
  assert.equal(await rpc("eth_getBalance", [to, "latest"]), "0x10");
});

test("bad arguments: the codes anvil answers with", async () => {
  await assert.rejects(rpc("evm_setAutomine", ["yes"]), /invalid argument/);
  await assert.rejects(rpc("evm_setAutomine", []), /missing value/);
  await assert.rejects(rpc("evm_setIntervalMining", [-1]), /invalid argument/);
});
