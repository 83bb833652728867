// viem, unmodified, against `flashnode dev`: deploy from bytecode, write, see the write in
// `pending` before its block seals (and not in `latest`), then in `latest`, then the old value
// at the previous block.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createPublicClient, createWalletClient, defineChain, http, keccak256, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import {
  pollUntil,
  setCalldata,
  startTestDevNode,
  storageContractBytecode,
  word,
} from "../utils/devChain.ts";

let node: DevNode;
before(async () => {
  node = await startTestDevNode();
});
after(async () => {
  await node.close();
});

test("viem: deploy, write, read through pending before the seal, then latest, then history", async () => {
  const chain = defineChain({
    id: Number(node.chainId),
    name: "flashnode",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [node.dedicatedUrl] } },
  });
  const account = privateKeyToAccount(node.accounts[0]!.privateKey as `0x${string}`);
  const wallet = createWalletClient({ chain, account, transport: http(node.dedicatedUrl) });
  const client = createPublicClient({
    chain,
    transport: http(node.dedicatedUrl),
    pollingInterval: 50,
  });
  const topic = keccak256(toHex("Set(uint256)"));

  const deployHash = await wallet.deployContract({
    abi: [],
    bytecode: storageContractBytecode(topic),
  });
  const deployed = await client.waitForTransactionReceipt({
    hash: deployHash,
    pollingInterval: 50,
  });
  assert.equal(deployed.status, "success");
  const contract = deployed.contractAddress!;
  // The receipt arrives with the pre-confirmation: the code is live in pending at once.
  const code = await client.request({ method: "eth_getCode", params: [contract, "pending"] });
  assert.equal(
    code,
    `0x${storageContractBytecode(topic).slice(2 + 34)}`,
    "runtime code visible in pending",
  );
  assert.equal(
    await client.getStorageAt({ address: contract, slot: "0x0", blockTag: "pending" }),
    word(42n),
  );
  // No wait for the seal: viem estimates without a block argument, which the dev chain
  // estimates at pending, where the pre-confirmed deployment's code already is.

  let sawPendingFirst = false;
  for (let attempt = 1n; attempt <= 3n && !sawPendingFirst; attempt++) {
    const value = 1000n + attempt;
    const hash = await wallet.sendTransaction({ to: contract, data: setCalldata(value) });
    // Pre-confirmed within a flashblock: visible in pending…
    await pollUntil(
      () => client.request({ method: "eth_getStorageAt", params: [contract, "0x0", "pending"] }),
      (v) => v === word(value),
      30_000,
      10,
    );
    const pendingReceipts = (await client.request({
      method: "eth_getBlockReceipts" as never,
      params: ["pending"] as never,
    })) as Array<{
      transactionHash: string;
      blockHash: string;
      blockNumber: string;
      logs: unknown[];
    }>;
    const latest = await client.getStorageAt({
      address: contract,
      slot: "0x0",
      blockTag: "latest",
    });
    const latestReceipt = await client.request({
      method: "eth_getBlockReceipts" as never,
      params: ["latest"] as never,
    });
    // …and not yet in latest (unless the block sealed in between: then try again).
    if (latest === word(value)) continue;
    sawPendingFirst = true;
    const mine = pendingReceipts.find((r) => r.transactionHash === hash);
    assert.ok(mine, "the pending receipts include the transaction");
    assert.equal(
      mine.blockHash,
      `0x${"00".repeat(32)}`,
      "pending receipts carry a zero block hash (as Base)",
    );
    assert.equal(mine.logs.length, 1);
    assert.ok(
      !(latestReceipt as Array<{ transactionHash: string }>).some(
        (r) => r.transactionHash === hash,
      ),
    );
    const pendingBlock = await client.getBlock({ blockTag: "pending" });
    assert.equal(
      `0x${BigInt(pendingBlock.number as unknown as bigint).toString(16)}`,
      mine.blockNumber,
    );

    // Then sealed: latest has it, with a real block hash.
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    await pollUntil(
      () => client.getStorageAt({ address: contract, slot: "0x0", blockTag: "latest" }),
      (v) => v === word(value),
    );
    const sealed = await pollUntil(
      () => client.getTransactionReceipt({ hash }),
      (r) => r.blockHash !== `0x${"00".repeat(32)}`,
    );
    const block = await client.getBlock({ blockNumber: sealed.blockNumber });
    assert.equal(sealed.blockHash, block.hash);
    assert.equal(receipt.transactionHash, hash);
    // And the value before the write, at the previous block.
    const before = await client.getStorageAt({
      address: contract,
      slot: "0x0",
      blockNumber: sealed.blockNumber - 1n,
    });
    // The first write may share the deployment's block (no wait for its seal): then the slot
    // held nothing before it.
    const deployedIn = (
      await pollUntil(
        () => client.getTransactionReceipt({ hash: deployHash }),
        (r) => r.blockHash !== `0x${"00".repeat(32)}`,
      )
    ).blockNumber;
    const first = deployedIn < sealed.blockNumber ? word(42n) : word(0n);
    assert.equal(before, attempt === 1n ? first : word(value - 1n));
  }
  assert.ok(sawPendingFirst, "the write was seen in pending before latest");
});
