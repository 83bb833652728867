// What a developer reads in the dev node's log at the default level: nothing while the chain
// is idle (empty blocks are at debug), and each transaction received, pre-confirmed (with the
// contract it created) and sealed. test/e2e/devTerminal.test.ts covers the banner around them.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { privateKeyToAccount } from "viem/accounts";
import { createLogger } from "../../src/log/logger.ts";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import {
  pollUntil,
  signTransfer,
  startTestDevNode,
  storageContractBytecode,
  waitForBlock,
} from "../utils/devChain.ts";
import { call } from "../utils/fixtures.ts";

type Line = { msg: string; [field: string]: unknown };
const lines: Line[] = [];
const logger = createLogger("info", { write: (s: string) => void lines.push(JSON.parse(s)) });

let node: DevNode;
before(async () => {
  node = await startTestDevNode({ logger, blockTimeMs: 200, flashblockIntervalMs: 50 });
});
after(async () => {
  await node.close();
});

test("an idle chain logs nothing at info, though it seals a block every 200 ms", async () => {
  const from = Number(await call(node.url, "eth_blockNumber"));
  const seen = lines.length;
  // Three seals later (whatever the time it takes), nothing was logged for them.
  await waitForBlock(node.url, from + 3);
  assert.deepEqual(lines.slice(seen), [], "no line for empty blocks or flashblocks");
});

test("a transfer, a deployment and a reverted deployment: received, pre-confirmed, contract created, sealed", async () => {
  const transfer = await signTransfer(node, 0, { nonce: 0, value: 1n });
  const transferHash = (await call(node.url, "eth_sendRawTransaction", [transfer])) as string;
  const account = privateKeyToAccount(node.accounts[0]!.privateKey as `0x${string}`);
  const deployment = (nonce: number, gas: bigint) =>
    account.signTransaction({
      chainId: Number(node.chainId),
      type: "eip1559",
      nonce,
      gas,
      maxFeePerGas: 20_000_000_000n,
      maxPriorityFeePerGas: 1n,
      data: storageContractBytecode(`0x${"11".repeat(32)}`),
    });
  const deployHash = (await call(node.url, "eth_sendRawTransaction", [
    await deployment(1, 200_000n),
  ])) as string;
  // Enough for the intrinsic gas, not for the constructor's SSTORE: the deployment reverts.
  const revertedHash = (await call(node.url, "eth_sendRawTransaction", [
    await deployment(2, 60_000n),
  ])) as string;
  const receipt = (await pollUntil(
    () => call(node.url, "eth_getTransactionReceipt", [deployHash]),
    (r) => r !== null,
  )) as { contractAddress: string };
  // They may seal in one block or in several.
  const sealedTransactions = () =>
    lines.filter((l) => l.msg === "sealed").reduce((n, l) => n + (l.transactions as number), 0);
  await pollUntil(
    async () => sealedTransactions(),
    (n) => n >= 3,
  );

  const from = account.address.toLowerCase();
  const find = (msg: string, hash: string) => lines.find((l) => l.msg === msg && l.hash === hash);
  for (const [nonce, hash] of [transferHash, deployHash, revertedHash].entries()) {
    const received = find("transaction received", hash);
    assert.equal(received?.from, from);
    assert.equal(received?.nonce, nonce);
  }
  const ran = find("transaction pre-confirmed", transferHash);
  assert.equal(ran?.status, "success");
  assert.equal(ran?.gasUsed, 21000);
  const created = find("contract created", deployHash);
  assert.equal(created?.contract, receipt.contractAddress);
  assert.equal(created?.status, "success");
  // Its receipt names an address (as geth's does), but no contract was created there.
  const reverted = find("transaction pre-confirmed", revertedHash);
  assert.equal(reverted?.status, "reverted");
  assert.equal(reverted?.contract, undefined);
  assert.equal(find("contract created", revertedHash), undefined);
  assert.equal(sealedTransactions(), 3, "only blocks with transactions are logged at info");
});
