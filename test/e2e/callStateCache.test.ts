// The call worker keeps sealed blocks' reads and code from one eth_call to the next
// (src/exec/callStateCache.ts): a call at `latest` after a new block sees that block's state, one
// at an older block still sees the old, and a block replaced under the same number (evm_revert,
// then a new block) is read afresh, not from what was kept for the block it replaced.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import { startTestDevNode } from "../utils/devChain.ts";
import { rpcCaller } from "../utils/fixtures.ts";

let node: DevNode;

const rpc = rpcCaller(() => node.dedicatedUrl);

const READER = "0x00000000000000000000000000000000000c0de1";
/** Returns its slot 0 and the caller-given account's balance: SLOAD(0), BALANCE(calldata[0:32]). */
const READER_CODE = "0x6000546000526000353160205260406000f3";
const OWNER = "0x00000000000000000000000000000000000ba1a0";
const word = (n: bigint) => `0x${n.toString(16).padStart(64, "0")}`;

/** The reader's answer at `block`: [slot 0, OWNER's balance]. */
async function read(block: string): Promise<[bigint, bigint]> {
  const out = await rpc<string>("eth_call", [{ to: READER, data: word(BigInt(OWNER)) }, block]);
  return [BigInt(`0x${out.slice(2, 66)}`), BigInt(`0x${out.slice(66, 130)}`)];
}

/** Slot 0 and OWNER's balance set, each sealed at once (automine): the new head's number. */
async function write(slot: bigint, balance: bigint): Promise<string> {
  await rpc("anvil_setStorageAt", [READER, "0x0", word(slot)]);
  await rpc("anvil_setBalance", [OWNER, `0x${balance.toString(16)}`]);
  return rpc<string>("eth_blockNumber");
}

before(async () => {
  node = await startTestDevNode({ blockTimeMs: 0, flashblockIntervalMs: 50 });
  await rpc("anvil_setCode", [READER, READER_CODE]);
});

after(async () => {
  await node.close();
});

test("a call at latest after a new block sees it; one at an older block sees the old", async () => {
  const first = await write(7n, 100n);
  // Warm: the worker now keeps this block's reads.
  assert.deepEqual(await read("latest"), [7n, 100n]);
  assert.deepEqual(await read("latest"), [7n, 100n]);
  const second = await write(9n, 200n);
  assert.notEqual(second, first);
  assert.deepEqual(await read("latest"), [9n, 200n]);
  assert.deepEqual(await read(first), [7n, 100n]);
  assert.deepEqual(await read(second), [9n, 200n]);
  assert.deepEqual(await read("latest"), [9n, 200n]);
});

test("a block replaced under the same number is read afresh", async () => {
  const snapshot = await rpc<string>("evm_snapshot");
  const replaced = await write(11n, 300n);
  assert.deepEqual(await read(replaced), [11n, 300n]);
  assert.deepEqual(await read("latest"), [11n, 300n]);
  assert.equal(await rpc<boolean>("evm_revert", [snapshot]), true);
  const again = await write(13n, 400n);
  assert.deepEqual(await read("latest"), [13n, 400n]);
  // The same number as the block it replaced (the writes sealed the same count of blocks).
  assert.equal(again, replaced);
  assert.deepEqual(await read(again), [13n, 400n]);
});

test("a VM kept from an earlier call starts cold and clean: repeated answers are the same", async () => {
  await write(17n, 500n);
  const request = { to: READER, data: word(BigInt(OWNER)) };
  const lists = [];
  const estimates = [];
  for (let i = 0; i < 3; i++) {
    lists.push(await rpc<{ gasUsed: string }>("eth_createAccessList", [request, "latest"]));
    estimates.push(await rpc<string>("eth_estimateGas", [request, "latest"]));
    // A call that fails before it runs (the sender cannot pay) between the answers compared.
    await assert.rejects(
      rpc("eth_call", [{ ...request, from: OWNER, gasPrice: "0xffffffffffffff" }, "latest"]),
      /insufficient funds/,
    );
  }
  // Cold reads of slot 0 and of OWNER's balance are in each: nothing stayed warm.
  assert.ok(BigInt(lists[0]!.gasUsed) > 21000n + 2100n + 2600n);
  assert.deepEqual(lists.slice(1), [lists[0], lists[0]]);
  assert.deepEqual(estimates.slice(1), [estimates[0], estimates[0]]);
  assert.deepEqual(await read("latest"), [17n, 500n]);
});
