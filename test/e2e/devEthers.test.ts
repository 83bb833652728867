// ethers v6, unmodified, against `flashnode dev`: the same flow as the viem test.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { ContractFactory, id, JsonRpcProvider, Wallet } from "ethers";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import {
  pollUntil,
  setCalldata,
  startTestDevNode,
  storageContractBytecode,
  word,
} from "../utils/devChain.ts";

let node: DevNode;
let provider: JsonRpcProvider;
before(async () => {
  node = await startTestDevNode();
  provider = new JsonRpcProvider(node.dedicatedUrl, Number(node.chainId), {
    staticNetwork: true,
    pollingInterval: 50,
    // ethers caches identical calls for 250 ms by default; pre-confirmations arrive faster than
    // that, so a cached pending nonce would be stale (the same holds against Base).
    cacheTimeout: -1,
  });
});
after(async () => {
  provider.destroy();
  await node.close();
});

test("ethers: deploy, write, read through pending before the seal, then latest, then history", async () => {
  const wallet = new Wallet(node.accounts[1]!.privateKey, provider);
  const factory = new ContractFactory([], storageContractBytecode(id("Set(uint256)")), wallet);
  const deployed = await factory.deploy();
  const deployHash = deployed.deploymentTransaction()!.hash;
  await deployed.waitForDeployment();
  const contract = await deployed.getAddress();
  assert.equal(await provider.getStorage(contract, 0, "pending"), word(42n));
  // No wait for the seal: ethers estimates without a block argument, which the dev chain
  // estimates at pending, where the pre-confirmed deployment's code already is.

  let sawPendingFirst = false;
  for (let attempt = 1n; attempt <= 3n && !sawPendingFirst; attempt++) {
    const value = 2000n + attempt;
    const sent = await wallet.sendTransaction({ to: contract, data: setCalldata(value) });
    await pollUntil(
      () => provider.getStorage(contract, 0, "pending"),
      (v) => v === word(value),
      30_000,
      10,
    );
    const pendingReceipts = (await provider.send("eth_getBlockReceipts", ["pending"])) as Array<{
      transactionHash: string;
    }>;
    if ((await provider.getStorage(contract, 0, "latest")) === word(value)) continue;
    sawPendingFirst = true;
    assert.ok(pendingReceipts.some((r) => r.transactionHash === sent.hash));
    const pendingNonce = await provider.getTransactionCount(wallet.address, "pending");
    const latestNonce = await provider.getTransactionCount(wallet.address, "latest");
    // The deployment may still be pre-confirmed too (same block): latest counts neither then.
    assert.equal(
      pendingNonce,
      sent.nonce + 1,
      "pending nonce counts the pre-confirmed transaction",
    );
    assert.ok(latestNonce <= sent.nonce, `latest nonce ${latestNonce} excludes it`);

    const receipt = await sent.wait();
    assert.equal(receipt?.status, 1);
    await pollUntil(
      () => provider.getStorage(contract, 0, "latest"),
      (v) => v === word(value),
    );
    const sealed = await pollUntil(
      () => provider.getTransactionReceipt(sent.hash),
      (r) => r !== null && r.blockHash !== `0x${"00".repeat(32)}`,
    );
    const block = await provider.getBlock(sealed!.blockNumber);
    assert.equal(block?.hash, sealed!.blockHash);
    // The first write may share the deployment's block (no wait for its seal): then the slot
    // held nothing before it.
    const deployedIn = (await pollUntil(
      () => provider.getTransactionReceipt(deployHash),
      (r) => r !== null && r.blockHash !== `0x${"00".repeat(32)}`,
    ))!.blockNumber;
    const first = deployedIn < sealed!.blockNumber ? word(42n) : word(0n);
    assert.equal(
      await provider.getStorage(contract, 0, sealed!.blockNumber - 1),
      attempt === 1n ? first : word(value - 1n),
    );
  }
  assert.ok(sawPendingFirst, "the write was seen in pending before latest");
});
