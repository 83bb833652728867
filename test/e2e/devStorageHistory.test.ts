// A block that changes several slots that already held values: each slot's value before the
// block must be its own. The executor reads every slot's pre-value from the archive, and until
// 2026-11-23 slotRowValue returned a view into lmdb-js's reused read buffer instead of a copy.
// This test passed on that code too (the executor's pre-values were not overwritten before the
// block was written); it guards the path that the view put at risk.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { privateKeyToAccount } from "viem/accounts";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import { pollUntil, startTestDevNode, word } from "../utils/devChain.ts";
import { call } from "../utils/fixtures.ts";

/** sstore(calldata[0:32], calldata[32:64]). */
const RUNTIME = "602035600035550000";
const INITCODE = `0x600960${"0c"}60003960096000f3${RUNTIME}` as const;

let node: DevNode;
before(async () => {
  // Blocks are sealed on evm_mine only: each step's transactions land in one block.
  node = await startTestDevNode({ blockTimeMs: 3_600_000, flashblockIntervalMs: 50 });
});
after(async () => {
  await node.close();
});

test("pre-values of several slots changed in one block are each the slot's own", async () => {
  const account = privateKeyToAccount(node.accounts[0]!.privateKey as `0x${string}`);
  let nonce = 0;
  const send = async (tx: { to?: `0x${string}`; data: `0x${string}` }) => {
    const raw = await account.signTransaction({
      chainId: Number(node.chainId),
      type: "eip1559",
      nonce: nonce++,
      gas: 200_000n,
      maxFeePerGas: 20_000_000_000n,
      maxPriorityFeePerGas: 1n,
      ...tx,
    });
    return (await call(node.url, "eth_sendRawTransaction", [raw])) as string;
  };
  const mine = async () => {
    await call(node.url, "evm_mine");
    return Number(await call(node.url, "eth_blockNumber"));
  };
  const deploy = await send({ data: INITCODE });
  await mine();
  const receipt = (await pollUntil(
    () => call(node.url, "eth_getTransactionReceipt", [deploy]),
    (r) => r !== null,
  )) as { contractAddress: `0x${string}`; status: string };
  assert.equal(receipt.status, "0x1");
  const contract = receipt.contractAddress;
  const set = (slot: number, value: bigint) =>
    send({ to: contract, data: `0x${word(BigInt(slot)).slice(2)}${word(value).slice(2)}` });
  const SLOTS = 6;
  // Three blocks, each changing every slot: 0 → v1 → v2 → v3.
  const values = (step: number, slot: number) => BigInt(0x100 * step + slot + 1);
  const blocks: number[] = [];
  for (let step = 1; step <= 3; step++) {
    for (let s = 0; s < SLOTS; s++) await set(s, values(step, s));
    blocks.push(await mine());
  }
  // A few more blocks, so reads of the three are history reads, not reads at the head.
  for (let i = 0; i < 3; i++) await mine();
  for (let step = 1; step <= 3; step++) {
    const at = `0x${blocks[step - 1]!.toString(16)}`;
    const before = `0x${(blocks[step - 1]! - 1).toString(16)}`;
    for (let s = 0; s < SLOTS; s++) {
      assert.equal(
        await call(node.url, "eth_getStorageAt", [contract, `0x${s.toString(16)}`, at]),
        word(values(step, s)),
        `slot ${s} at block ${at}`,
      );
      assert.equal(
        await call(node.url, "eth_getStorageAt", [contract, `0x${s.toString(16)}`, before]),
        step === 1 ? word(0n) : word(values(step - 1, s)),
        `slot ${s} before block ${at}`,
      );
    }
  }
});
