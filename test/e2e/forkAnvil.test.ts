// `dev --fork-url` against a real upstream: anvil, seeded with a contract and some history, forked
// at a past block F while it moves on, every request counted by a proxy in between. State at F,
// history and receipts at or below F equal anvil's; the fork's own transactions show in pending,
// then latest, never upstream; what was fetched is never fetched again, restart included; rate
// limits are retried; a dead upstream fails uncached reads in bounded time while cached ones
// answer.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { RunningNode } from "../../src/node/plan.ts";
import { upstreamOptions } from "../../src/upstream/options.ts";
import {
  type ProxiedUpstream,
  RECEIVER,
  startProxiedUpstream,
  word,
} from "../utils/anvilUpstream.ts";
import { devSigner, signAtPendingNonce, startTestDevNode } from "../utils/devChain.ts";
import { call, callError, tempDatadir } from "../utils/fixtures.ts";

let upstream: ProxiedUpstream;
let node: RunningNode;
const datadir = tempDatadir("fork-anvil");
const F = () => `0x${upstream.chain.fork.number.toString(16)}`;
const account = devSigner();
const NEW_ADDRESS = "0x2000000000000000000000000000000000000002";

function startFork(deadlineMs = 60_000): Promise<RunningNode> {
  return startTestDevNode({
    datadir,
    blockTimeMs: 60_000,
    upstream: {
      options: upstreamOptions(upstream.proxy.url, {
        deadlineMs,
        retryBackoffMs: 10,
        maxBackoffMs: 50,
      }),
      blockNumber: upstream.chain.fork.number,
    },
  });
}

before(async () => {
  upstream = await startProxiedUpstream({ movedOn: true });
  node = await startFork();
});

after(async () => {
  await node?.close();
  await upstream?.stop();
});

/** The seeded contract's storage `slot` at `tag`: on the fork, and on anvil. */
async function forkSlot(slot: bigint, tag: string): Promise<bigint> {
  const at = [upstream.chain.contract, word(slot), tag];
  return BigInt(String(await call(node.url, "eth_getStorageAt", at)));
}
async function anvilSlot(slot: bigint, tag: string): Promise<bigint> {
  const at = [upstream.chain.contract, word(slot), tag];
  return BigInt(await upstream.anvil.rpc<string>("eth_getStorageAt", at));
}

/** The same call on the fork and on anvil (at F unless the params pin a block). */
async function same(method: string, params: unknown[], anvilParams = params): Promise<unknown> {
  const mine = await call(node.dedicatedUrl, method, params);
  assert.deepEqual(
    mine,
    await upstream.anvil.rpc(method, anvilParams),
    `${method} ${JSON.stringify(params)}`,
  );
  return mine;
}

test("state at F, and blocks, transactions, receipts and logs at or below F equal anvil's", async () => {
  for (const slot of [...upstream.chain.slots, 6n]) {
    await same(
      "eth_getStorageAt",
      [upstream.chain.contract, word(slot), "latest"],
      [upstream.chain.contract, word(slot), F()],
    );
  }
  await same("eth_getBalance", [RECEIVER, "latest"], [RECEIVER, F()]);
  await same("eth_getCode", [upstream.chain.contract, "latest"], [upstream.chain.contract, F()]);
  // The chain moved on upstream: slot 1 is 999 there now, 100 here.
  assert.equal(await anvilSlot(1n, "latest"), 999n);
  for (let n = 0n; n <= upstream.chain.fork.number; n++) {
    const id = `0x${n.toString(16)}`;
    await same("eth_getBlockByNumber", [id, true]);
    await same("eth_getBlockReceipts", [id]);
  }
  for (const tx of upstream.chain.txs) {
    await same("eth_getTransactionByHash", [tx]);
    await same("eth_getTransactionReceipt", [tx]);
  }
  const logs = (await same("eth_getLogs", [
    { fromBlock: "0x0", toBlock: F(), address: upstream.chain.contract },
  ])) as unknown[];
  assert.equal(logs.length, 5, "the seed's five stores");
  // A range across F: the upstream's logs up to F, the fork's after it (none yet).
  assert.deepEqual(
    await call(node.dedicatedUrl, "eth_getLogs", [
      { fromBlock: "0x0", toBlock: "latest", address: upstream.chain.contract },
    ]),
    logs,
  );
  // State below F is the upstream's at that block.
  const before = `0x${(upstream.chain.fork.number - 1n).toString(16)}`;
  await same("eth_getBalance", [RECEIVER, before]);
});

test("a transaction on the fork shows in pending, then latest, and never upstream", async () => {
  const raw = await signAtPendingNonce(node.url, account, {
    gas: 100_000n,
    to: upstream.chain.contract as `0x${string}`,
    data: `0x${word(2n).slice(2)}${word(7n).slice(2)}`,
  });
  const hash = await call(node.url, "eth_sendRawTransactionSync", [raw]);
  assert.equal((hash as { status: string }).status, "0x1");
  assert.equal(await forkSlot(2n, "pending"), 7n);
  assert.equal(await forkSlot(2n, "latest"), 200n);
  await call(node.url, "evm_mine");
  assert.equal(await forkSlot(2n, "latest"), 7n);
  // At F it is still the upstream's value; the upstream itself never saw the transaction.
  assert.equal(await forkSlot(2n, F()), 200n);
  assert.equal(await anvilSlot(2n, "latest"), 200n);
  assert.equal(
    await upstream.anvil.rpc("eth_getTransactionByHash", [
      (hash as { transactionHash: string }).transactionHash,
    ]),
    null,
  );
});

test("what was fetched is never fetched again, across a restart", async () => {
  const reads = async () => {
    for (const slot of upstream.chain.slots)
      await call(node.url, "eth_getStorageAt", [upstream.chain.contract, word(slot), "latest"]);
    await call(node.url, "eth_getBalance", [RECEIVER, "latest"]);
    await call(node.dedicatedUrl, "eth_getBlockByNumber", ["0x1", true]);
    await call(node.dedicatedUrl, "eth_getBlockReceipts", ["0x1"]);
    await call(node.url, "eth_getTransactionReceipt", [upstream.chain.txs[0]]);
  };
  await reads();
  upstream.proxy.resetCounts();
  await reads();
  assert.equal(upstream.proxy.requests, 0, "repeated reads");
  await node.close();
  node = await startFork();
  // The start asks one thing: the upstream's block at F's number, to be sure it is still the
  // chain forked (another chain with the same chain id is refused).
  const check = upstream.proxy.log.flatMap((r) => r.calls);
  assert.deepEqual(
    check.map((c) => [c.method, c.params]),
    [["eth_getBlockByNumber", [`0x${upstream.chain.fork.number.toString(16)}`, false]]],
  );
  upstream.proxy.resetCounts();
  await reads();
  assert.equal(
    upstream.proxy.requests,
    0,
    `after a restart: ${JSON.stringify([...upstream.proxy.methods])}`,
  );
});

test("rate limits (HTTP 429) are retried", async () => {
  upstream.proxy.resetCounts();
  upstream.proxy.fault = ({ n }) =>
    n <= 2
      ? { status: 429, headers: { "retry-after": "0" }, body: "Too Many Requests" }
      : undefined;
  try {
    assert.equal(await call(node.url, "eth_getBalance", [NEW_ADDRESS, "latest"]), "0x0");
    assert.ok(upstream.proxy.requests >= 3, `${upstream.proxy.requests} requests`);
  } finally {
    upstream.proxy.fault = undefined;
  }
});

test("with the upstream down, uncached reads fail clearly in bounded time; cached ones answer", async () => {
  await node.close();
  node = await startFork(1_500);
  upstream.proxy.fault = () => "hang";
  try {
    const err = await callError(node.url, "eth_getBalance", [
      "0x3000000000000000000000000000000000000003",
      "latest",
    ]);
    assert.equal(err.code, -32000);
    assert.match(err.message, /upstream/);
    assert.equal(await forkSlot(3n, "latest"), 300n);
    assert.equal(
      (await call(node.dedicatedUrl, "eth_getBlockByNumber", ["0x1", false])) !== null,
      true,
    );
  } finally {
    upstream.proxy.fault = undefined;
  }
});

test("anvil_reset moves the fork to another block, and without forking back to a new dev chain", async () => {
  const upstreamHead = BigInt(await upstream.anvil.rpc<string>("eth_blockNumber"));
  assert.equal(
    await call(node.url, "anvil_reset", [{ forking: { blockNumber: Number(upstreamHead) } }]),
    null,
  );
  assert.equal(BigInt(String(await call(node.url, "eth_blockNumber"))), upstreamHead);
  // The upstream's state at its head: slot 1 was set to 999 after the old F.
  assert.equal(await forkSlot(1n, "latest"), 999n);
  // The old fork's own transaction is gone with it.
  assert.equal(await forkSlot(2n, "pending"), 200n);
  // Blocks keep being built on the new base.
  await call(node.url, "evm_mine");
  assert.equal(BigInt(String(await call(node.url, "eth_blockNumber"))), upstreamHead + 1n);
  assert.equal(await call(node.url, "hardhat_reset", []), true);
  assert.equal(await call(node.url, "eth_blockNumber"), "0x0");
  assert.equal(await call(node.url, "eth_getCode", [upstream.chain.contract, "latest"]), "0x");
});
