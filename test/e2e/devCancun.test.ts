// `flashnode dev --hardfork cancun`: a chain without EIP-7685 serves flashblocks and seals blocks
// whose headers carry no requests hash (the sequencer used to die at its first flashblock, asking
// for one), on an OP-stack chain and on an Ethereum one.
import assert from "node:assert/strict";
import { test } from "node:test";
import { pollUntil, signTransfer, startTestDevNode } from "../utils/devChain.ts";
import { call } from "../utils/fixtures.ts";

type Header = { number: string; requestsHash?: string; parentBeaconBlockRoot?: string };

for (const ethereum of [false, true])
  test(`a cancun ${ethereum ? "Ethereum" : "OP-stack"} dev chain pre-confirms and seals`, async () => {
    const node = await startTestDevNode({
      fork: "cancun",
      ethereum,
      blockTimeMs: 600_000,
      flashblockIntervalMs: 50,
    });
    try {
      const hash = await call(node.url, "eth_sendRawTransaction", [
        await signTransfer(node, 1, { nonce: 0 }),
      ]);
      await pollUntil(
        async () => call(node.url, "eth_getTransactionReceipt", [hash]),
        (r) => r !== null,
        10_000,
      );
      const pending = (await call(node.url, "eth_getBlockByNumber", ["pending", false])) as Header;
      assert.equal(pending.requestsHash, undefined, "no requests hash before Prague");
      assert.notEqual(pending.parentBeaconBlockRoot, undefined, "Cancun's beacon root is there");
      await call(node.url, "evm_mine");
      const sealed = await call(node.url, "eth_blockNumber");
      const block = (await call(node.url, "eth_getBlockByNumber", [sealed, false])) as Header & {
        transactions: string[];
      };
      // An OP-stack block opens with its L1-info deposit.
      assert.deepEqual(block.transactions.slice(ethereum ? 0 : 1), [hash]);
      assert.equal(block.requestsHash, undefined);
    } finally {
      await node.close();
    }
  });
