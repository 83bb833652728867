// `flashnode dev` keeps its chain across restarts (and --fresh starts over); fee methods answer
// as geth's do.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { parseGwei } from "viem";
import { pollUntil, signTransfer, startTestDevNode } from "../utils/devChain.ts";
import { dirContents } from "../utils/dirContents.ts";
import { BIN, call, rpc, tempDatadir } from "../utils/fixtures.ts";
import { startCli } from "../utils/processes.ts";

type Rpc = { result?: unknown; error?: { code: number; message: string } };

test("the chain survives a restart, --fresh starts over, and fee methods answer", async () => {
  const datadir = tempDatadir("restart");
  let node = await startTestDevNode({ datadir });
  const call = async (method: string, params: unknown[] = []) =>
    (await rpc(node.dedicatedUrl, { jsonrpc: "2.0", id: 1, method, params })) as Rpc;
  const raw = await signTransfer(node, 0, {
    nonce: 0,
    to: node.accounts[1]!.address,
    value: 12345n,
    maxPriorityFeePerGas: parseGwei("1"),
  });
  const hash = (await call("eth_sendRawTransaction", [raw])).result as string;
  const sealed = await pollUntil(
    async () =>
      (await call("eth_getTransactionReceipt", [hash])).result as {
        blockHash: string;
        blockNumber: string;
      } | null,
    (r) => r !== null && !/^0x0+$/.test(r.blockHash),
    30_000,
  );
  const history = (await call("eth_feeHistory", ["0x4", "latest", [10, 90]])).result as {
    oldestBlock: string;
    baseFeePerGas: string[];
    gasUsedRatio: number[];
    reward: string[][];
  };
  assert.equal(history.baseFeePerGas.length, history.gasUsedRatio.length + 1);
  assert.equal(history.reward[0]!.length, 2);
  const price = BigInt((await call("eth_gasPrice")).result as string);
  const tip = BigInt((await call("eth_maxPriorityFeePerGas")).result as string);
  assert.ok(price > tip && tip > 0n);
  assert.equal((await call("eth_feeHistory", ["0x4", "latest", [50, 10]])).error?.code, -32602);
  const head = Number((await call("eth_blockNumber")).result);
  await node.close();

  node = await startTestDevNode({ datadir });
  assert.ok(
    Number((await call("eth_blockNumber")).result) >= head,
    "the chain continues from its head",
  );
  assert.deepEqual(
    ((await call("eth_getTransactionReceipt", [hash])).result as { blockHash: string }).blockHash,
    sealed!.blockHash,
  );
  assert.equal(
    BigInt(
      (await call("eth_getTransactionCount", [node.accounts[0]!.address, "latest"]))
        .result as string,
    ),
    1n,
  );
  await pollUntil(
    async () => Number((await call("eth_blockNumber")).result),
    (n) => n > head,
    30_000,
  );
  await node.close();

  node = await startTestDevNode({ datadir, fresh: true });
  assert.equal(
    (await call("eth_getTransactionReceipt", [hash])).result,
    null,
    "--fresh starts a new chain",
  );
  await node.close();
});

test("--chain-id that is not the datadir's chain is refused in one line; --fresh starts anew", async () => {
  const datadir = tempDatadir("restart-chain-id");
  const node = await startTestDevNode({ datadir });
  assert.equal(await call(node.url, "eth_chainId"), "0x7a69");
  await node.close();
  const before = dirContents(datadir);
  const args = ["dev", "--datadir", datadir, "--port", "0", "--chain-id", "10"];
  // A node that started anyway is stopped by the timeout: the test then fails on its status.
  const refused = spawnSync(process.execPath, [BIN, ...args], {
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(refused.status, 1, refused.stdout + refused.stderr);
  const lines = refused.stderr.trim().split("\n");
  assert.equal(lines.length, 1, refused.stderr);
  assert.match(
    lines[0]!,
    /^flashnode: .* holds chain 31337 \(head \d+\), not --chain-id 10: drop --chain-id to continue that chain, or add --fresh to start a new one$/,
  );
  assert.deepEqual(dirContents(datadir), before, "the datadir is as it was");
  // The same --chain-id as the datadir's continues it; --fresh makes the new chain.
  const same = await startCli(["dev", "--datadir", datadir, "--chain-id", "31337"]);
  assert.equal(await same.rpc("eth_chainId"), "0x7a69");
  assert.equal(await same.interrupt(), 0);
  const fresh = await startCli(["dev", "--datadir", datadir, "--chain-id", "10", "--fresh"]);
  assert.equal(await fresh.rpc("eth_chainId"), "0xa");
  assert.equal(await fresh.interrupt(), 0);
});
