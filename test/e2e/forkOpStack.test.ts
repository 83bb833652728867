// `dev --fork-url` of an OP-stack chain: a second `flashnode dev` (an OP-stack chain like Base,
// which refuses eth_getBlockReceipts on its public endpoint as Base does) is the upstream. The
// fork keeps the upstream's deposits and L1-fee fields as sent, opens each of its own blocks with
// an L1-info deposit carrying the upstream's L1Block values, and charges its transactions the L1
// fee into the L1 fee vault.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { RunningNode } from "../../src/node/plan.ts";
import { upstreamOptions } from "../../src/upstream/options.ts";
import { devSigner, pollUntil, signAtPendingNonce, startTestDevNode } from "../utils/devChain.ts";
import { call, tempDatadir } from "../utils/fixtures.ts";

const L1_FEE_VAULT = "0x420000000000000000000000000000000000001a";
const L1 = {
  baseFee: 7_000_000_000n,
  blobBaseFee: 3n,
  baseFeeScalar: 2269,
  blobBaseFeeScalar: 1_055_762,
};
const alice = devSigner(0);
const bob = devSigner(1);

type Receipt = Record<string, unknown> & { type: string; status: string; blockNumber: string };
type Block = { number: string; hash: string; transactions: Record<string, unknown>[] };

let upstream: RunningNode;
let fork: RunningNode;
let F: bigint;

async function transfer(url: string, from: typeof alice, value: bigint): Promise<Receipt> {
  const raw = await signAtPendingNonce(url, from, { gas: 21_000n, to: bob.address, value });
  return (await call(url, "eth_sendRawTransactionSync", [raw])) as Receipt;
}

before(async () => {
  upstream = await startTestDevNode({ blockTimeMs: 400, flashblockIntervalMs: 100, l1: L1 });
  const sent = await transfer(upstream.url, alice, 1000n);
  F = BigInt(sent.blockNumber);
  await pollUntil(
    async () => BigInt(String(await call(upstream.url, "eth_blockNumber"))),
    (n) => n >= F + 2n,
  );
  fork = await startTestDevNode({
    datadir: tempDatadir("fork-op"),
    blockTimeMs: 60_000,
    upstream: { options: upstreamOptions(upstream.url), blockNumber: F },
  });
});

after(async () => {
  await fork?.close();
  await upstream?.close();
});

test("blocks and receipts at or below F are the upstream's: deposit and L1-fee fields as sent", async () => {
  const id = `0x${F.toString(16)}`;
  const mine = (await call(fork.dedicatedUrl, "eth_getBlockByNumber", [id, true])) as Block;
  assert.deepEqual(mine, await call(upstream.dedicatedUrl, "eth_getBlockByNumber", [id, true]));
  const deposit = mine.transactions[0]!;
  assert.equal(deposit.type, "0x7e");
  assert.ok(typeof deposit.sourceHash === "string", "a deposit's sourceHash passes through");
  const receipts = (await call(fork.dedicatedUrl, "eth_getBlockReceipts", [id])) as Receipt[];
  assert.deepEqual(receipts, await call(upstream.dedicatedUrl, "eth_getBlockReceipts", [id]));
  const user = receipts.find((r) => r.type === "0x2")!;
  assert.ok(BigInt(String(user.l1Fee)) > 0n, "the upstream's l1Fee passes through");
});

test("the fork's blocks open with an L1-info deposit and its transactions pay the L1 fee", async () => {
  const vaultBefore = BigInt(
    String(await call(fork.url, "eth_getBalance", [L1_FEE_VAULT, "latest"])),
  );
  const receipt = await transfer(fork.url, alice, 5n);
  assert.equal(receipt.status, "0x1");
  const l1Fee = BigInt(String(receipt.l1Fee));
  assert.ok(l1Fee > 0n, "an L1 fee is charged");
  // The L1 values are the upstream's L1Block's at F.
  assert.equal(BigInt(String(receipt.l1BaseFeeScalar)), BigInt(L1.baseFeeScalar));
  assert.equal(BigInt(String(receipt.l1GasPrice)), L1.baseFee);
  await call(fork.url, "evm_mine");
  const block = (await call(fork.dedicatedUrl, "eth_getBlockByNumber", [
    receipt.blockNumber,
    true,
  ])) as Block;
  assert.equal(BigInt(block.number), F + 1n);
  assert.equal(block.transactions[0]!.type, "0x7e", "the L1-info deposit opens the block");
  const vaultAfter = BigInt(
    String(await call(fork.url, "eth_getBalance", [L1_FEE_VAULT, "latest"])),
  );
  assert.equal(vaultAfter - vaultBefore, l1Fee, "the L1 fee vault is credited the receipt's l1Fee");
  // Nothing of it reached the upstream.
  assert.equal(
    await call(upstream.url, "eth_getTransactionByHash", [receipt.transactionHash]),
    null,
  );
});

test("anvil_nodeInfo and anvil_metadata say where the chain was forked from", async () => {
  const info = (await call(fork.url, "anvil_nodeInfo")) as { forkConfig: Record<string, unknown> };
  assert.equal(info.forkConfig.forkUrl, new URL(upstream.url).origin);
  assert.equal(info.forkConfig.forkBlockNumber, Number(F));
  const meta = (await call(fork.url, "anvil_metadata")) as {
    forkedNetwork: Record<string, unknown>;
  };
  const atF = (await call(upstream.url, "eth_getBlockByNumber", [
    `0x${F.toString(16)}`,
    false,
  ])) as Block;
  assert.deepEqual(meta.forkedNetwork, {
    chainId: 31337,
    forkBlockNumber: Number(F),
    forkBlockHash: atF.hash,
  });
});
