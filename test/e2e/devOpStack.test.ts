// `flashnode dev` as an OP-stack chain (the default): the L1-info deposit opening every block and
// alone in flashblock 0, the L1 data fee charged and credited to the vaults as the receipt says,
// op-geth's receipt and deposit fields, viem's OP-stack actions and formatters, and a user
// deposit injected through flashnode_depositTransaction.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  parseEther,
  serializeTransaction,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { chainConfig, publicActionsL2 } from "viem/op-stack";
import WebSocket from "ws";
import { flzCompressLen } from "../../src/exec/op/fastlz.ts";
import { fjordL1Cost } from "../../src/exec/op/l1Cost.ts";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import { hexToBytes } from "../../src/util/hex.ts";
import { pollUntil, startTestDevNode } from "../utils/devChain.ts";
import { call } from "../utils/fixtures.ts";

const BASE_FEE_VAULT = "0x4200000000000000000000000000000000000019";
const L1_FEE_VAULT = "0x420000000000000000000000000000000000001a";
const SEQUENCER_FEE_VAULT = "0x4200000000000000000000000000000000000011";
const DEPOSITOR = "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001";
const L1_BLOCK = "0x4200000000000000000000000000000000000015";
const L1 = {
  baseFee: 7_000_000_000n,
  blobBaseFee: 3n,
  baseFeeScalar: 2269,
  blobBaseFeeScalar: 1_055_762,
};

type Receipt = Record<string, string | null | unknown[]> & { type: string; status: string };
type Block = { number: string; transactions: Record<string, string>[] };

let node: DevNode;
let url: string;
const flashblocks: { index: number; diff: { transactions: string[] }; block: number }[] = [];
let ws: WebSocket;

const rpc = (method: string, params: unknown[] = []) => call(url, method, params);
const balance = async (address: string, block: bigint) =>
  BigInt((await rpc("eth_getBalance", [address, `0x${block.toString(16)}`])) as string);

before(async () => {
  node = await startTestDevNode({ blockTimeMs: 600, flashblockIntervalMs: 100, l1: L1 });
  url = node.dedicatedUrl;
  ws = new WebSocket(`${node.url.replace(/^http/, "ws").replace(/\/$/, "")}/flashblocks`);
  ws.on("message", (m) => {
    const j = JSON.parse(String(m)) as {
      index: number;
      diff: { transactions: string[] };
      metadata: { block_number: number };
    };
    flashblocks.push({ index: j.index, diff: j.diff, block: j.metadata.block_number });
  });
  await new Promise((r) => ws.once("open", r));
});
after(async () => {
  ws?.close();
  await node?.close();
});

const chain = () =>
  defineChain({
    ...chainConfig,
    id: Number(node.chainId),
    name: "flashnode dev",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });

test("every block opens with the L1-info deposit, rendered and receipted as op-geth does", async () => {
  await pollUntil(
    () => rpc("eth_blockNumber"),
    (n) => BigInt(n as string) >= 2n,
  );
  for (const n of ["0x1", "0x2"]) {
    const block = (await rpc("eth_getBlockByNumber", [n, true])) as Block;
    const info = block.transactions[0]!;
    assert.equal(info.type, "0x7e");
    assert.equal(info.from, DEPOSITOR);
    assert.equal(info.to, L1_BLOCK);
    assert.equal(info.gasPrice, "0x0");
    assert.equal(info.gas, "0xf4240");
    assert.equal(info.input!.slice(0, 10), "0x440a5e20"); // setL1BlockValuesEcotone
    assert.match(info.sourceHash!, /^0x[0-9a-f]{64}$/);
    assert.equal(info.mint, undefined); // no mint: omitted, as op-geth
    assert.equal(info.depositReceiptVersion, "0x1");
    const receipt = (await rpc("eth_getTransactionReceipt", [info.hash])) as Receipt;
    assert.equal(receipt.status, "0x1", "the L1Block predeploy accepted the values");
    assert.equal(receipt.depositReceiptVersion, "0x1");
    assert.equal(receipt.depositNonce, info.nonce);
    assert.equal(receipt.effectiveGasPrice, "0x0");
    assert.equal(receipt.l1Fee, undefined);
  }
  // The depositor's nonce moves one per block, as the deposit nonces show.
  const n1 = (await rpc("eth_getBlockByNumber", ["0x1", true])) as Block;
  const n2 = (await rpc("eth_getBlockByNumber", ["0x2", true])) as Block;
  assert.equal(BigInt(n2.transactions[0]!.nonce!), BigInt(n1.transactions[0]!.nonce!) + 1n);
  // The L1Block predeploy holds what the deposit carried.
  const gpo = "0x420000000000000000000000000000000000000f";
  const l1BaseFee = await rpc("eth_call", [{ to: gpo, data: "0x519b4bd3" }, "latest"]); // l1BaseFee()
  assert.equal(BigInt(l1BaseFee as string), L1.baseFee);
});

test("the flashblocks stream's index 0 carries only the L1-info deposit", async () => {
  await pollUntil(
    async () => flashblocks.filter((f) => f.index === 0).length,
    (n) => n >= 3,
  );
  for (const f of flashblocks.filter((f) => f.index === 0)) {
    assert.equal(f.diff.transactions.length, 1, `block ${f.block}`);
    const raw = f.diff.transactions[0]!;
    assert.equal(raw.slice(0, 4), "0x7e");
    assert.ok(raw.includes(DEPOSITOR.slice(2)), "sent by the depositor account");
  }
});

test("a transaction pays the L1 fee its receipt reports; the vaults get exactly the fees", async () => {
  const account = privateKeyToAccount(node.accounts[1]!.privateKey as `0x${string}`);
  const wallet = createWalletClient({ account, chain: chain(), transport: http(url) });
  const client = createPublicClient({ chain: chain(), transport: http(url) }).extend(
    publicActionsL2(),
  );
  const to = node.accounts[2]!.address as `0x${string}`;
  const hash = await wallet.sendTransaction({ to, value: parseEther("0.25") });
  const receipt = await client.waitForTransactionReceipt({ hash });
  // viem's OP formatters read op-geth's fields.
  assert.ok(receipt.l1Fee !== null && receipt.l1Fee > 0n);
  assert.equal(receipt.l1GasPrice, L1.baseFee);
  assert.ok(receipt.l1GasUsed !== null && receipt.l1GasUsed > 0n);
  const raw = (await rpc("eth_getTransactionReceipt", [hash])) as Receipt;
  assert.equal(BigInt(raw.l1BaseFeeScalar as string), BigInt(L1.baseFeeScalar));
  assert.equal(BigInt(raw.l1BlobBaseFeeScalar as string), BigInt(L1.blobBaseFeeScalar));
  assert.equal(BigInt(raw.l1BlobBaseFee as string), L1.blobBaseFee);
  // The fee is Fjord's formula over the signed transaction's bytes.
  const signed = (await rpc("debug_getRawTransaction", [hash])) as string;
  const expected = fjordL1Cost(BigInt(flzCompressLen(hexToBytes(signed))), {
    l1BaseFee: L1.baseFee,
    l1BlobBaseFee: L1.blobBaseFee,
    baseFeeScalar: BigInt(L1.baseFeeScalar),
    blobBaseFeeScalar: BigInt(L1.blobBaseFeeScalar),
  }).fee;
  assert.equal(receipt.l1Fee, expected);

  // Wait for the block to seal, then account for every wei of it.
  const n = await pollUntil(
    async () => (await rpc("eth_getTransactionReceipt", [hash])) as Receipt,
    (r) => r.blockHash !== `0x${"00".repeat(32)}`,
  );
  const blockNumber = BigInt(n.blockNumber as string);
  // viem's OP formatters render the block's opening deposit as a deposit.
  const opening = await client.getBlock({ blockNumber, includeTransactions: true });
  const info = opening.transactions[0]!;
  assert.equal(info.type, "deposit");
  assert.ok("sourceHash" in info && /^0x[0-9a-f]{64}$/.test(info.sourceHash));
  assert.equal(info.from, DEPOSITOR);
  const block = (await rpc("eth_getBlockByNumber", [n.blockNumber, true])) as Block & {
    baseFeePerGas: string;
  };
  const receipts = (await rpc("eth_getBlockReceipts", [n.blockNumber])) as Receipt[];
  const baseFee = BigInt(block.baseFeePerGas);
  let baseFees = 0n;
  let l1Fees = 0n;
  let tips = 0n;
  for (const r of receipts) {
    if (r.type === "0x7e") continue;
    const gas = BigInt(r.gasUsed as string);
    baseFees += gas * baseFee;
    l1Fees += BigInt(r.l1Fee as string);
    tips += gas * (BigInt(r.effectiveGasPrice as string) - baseFee);
  }
  const delta = async (a: string) =>
    (await balance(a, blockNumber)) - (await balance(a, blockNumber - 1n));
  assert.equal(await delta(BASE_FEE_VAULT), baseFees);
  assert.equal(await delta(L1_FEE_VAULT), l1Fees);
  assert.equal(await delta(SEQUENCER_FEE_VAULT), tips);
  assert.ok(l1Fees > 0n);
  // The sender paid value + L2 gas + the L1 fee, nothing else.
  const paid = -(await delta(account.address));
  const gas = BigInt(raw.gasUsed as string) * BigInt(raw.effectiveGasPrice as string);
  assert.equal(paid, parseEther("0.25") + gas + (receipt.l1Fee ?? 0n));
});

test("viem's estimateL1Fee and estimateTotalFee price with the GasPriceOracle predeploy", async () => {
  const account = privateKeyToAccount(node.accounts[3]!.privateKey as `0x${string}`);
  const client = createPublicClient({ chain: chain(), transport: http(url) }).extend(
    publicActionsL2(),
  );
  const args = {
    account,
    to: node.accounts[4]!.address as `0x${string}`,
    value: 1n,
    chain: chain(),
  };
  const l1Fee = await client.estimateL1Fee(args);
  assert.ok(l1Fee > 0n);
  // GasPriceOracle.getL1Fee(unsigned tx) = Fjord's cost of FastLZ(unsigned) + 68 bytes: the
  // predeploy's Solidity FastLZ and formula agree with the node's own.
  const request = await client.prepareTransactionRequest({ ...args, type: "eip1559" });
  const unsigned = serializeTransaction({ ...request, chainId: Number(node.chainId) } as never);
  const ours = fjordL1Cost(BigInt(flzCompressLen(hexToBytes(unsigned)) + 68), {
    l1BaseFee: L1.baseFee,
    l1BlobBaseFee: L1.blobBaseFee,
    baseFeeScalar: BigInt(L1.baseFeeScalar),
    blobBaseFeeScalar: BigInt(L1.blobBaseFeeScalar),
  }).fee;
  assert.equal(l1Fee, ours);
  const total = await client.estimateTotalFee(args);
  assert.ok(total > l1Fee, "the total adds the L2 gas cost to the L1 fee");
});

test("a deposit injected with flashnode_depositTransaction mints, transfers and is receipted", async () => {
  const from = "0x00000000000000000000000000000000000d3e01";
  const to = "0x00000000000000000000000000000000000d3e02";
  const hash = (await rpc("flashnode_depositTransaction", [
    { from, to, mint: "0xde0b6b3a7640000", value: "0x6f05b59d3b20000", gas: "0x186a0" },
  ])) as string;
  const receipt = await pollUntil(
    async () => (await rpc("eth_getTransactionReceipt", [hash])) as Receipt | null,
    (r) => r !== null && r.blockHash !== `0x${"00".repeat(32)}`,
  );
  assert.ok(receipt !== null);
  assert.equal(receipt.type, "0x7e");
  assert.equal(receipt.status, "0x1");
  assert.equal(receipt.depositNonce, "0x0");
  assert.equal(receipt.transactionIndex, "0x1", "right after the L1-info deposit");
  const tx = (await rpc("eth_getTransactionByHash", [hash])) as Record<string, string>;
  assert.equal(tx.mint, "0xde0b6b3a7640000");
  assert.equal(tx.from, from);
  assert.equal(
    BigInt((await rpc("eth_getBalance", [from, "latest"])) as string),
    parseEther("0.5"),
  );
  assert.equal(BigInt((await rpc("eth_getBalance", [to, "latest"])) as string), parseEther("0.5"));
  // In flashblock 0 of its block, with the L1-info deposit.
  const fb = flashblocks.find((f) => f.index === 0 && f.block === Number(receipt.blockNumber));
  assert.equal(fb?.diff.transactions.length, 2);
});

test("a deposit that cannot pay its value is included, keeps its mint and bumps the nonce", async () => {
  const from = "0x00000000000000000000000000000000000d3e03";
  const hash = (await rpc("flashnode_depositTransaction", [
    { from, to: from, mint: "0x64", value: "0x3e8" },
  ])) as string;
  const receipt = await pollUntil(
    async () => (await rpc("eth_getTransactionReceipt", [hash])) as Receipt | null,
    (r) => r !== null && r.blockHash !== `0x${"00".repeat(32)}`,
  );
  assert.ok(receipt !== null);
  assert.equal(receipt.status, "0x0");
  assert.equal(receipt.gasUsed, "0x186a0", "a failed deposit uses all its gas");
  assert.equal(BigInt((await rpc("eth_getBalance", [from, "latest"])) as string), 100n);
  assert.equal(await rpc("eth_getTransactionCount", [from, "latest"]), "0x1");
});

test("deposits are refused over eth_sendRawTransaction, as op-geth does", async () => {
  await assert.rejects(rpc("eth_sendRawTransaction", ["0x7ef8"]), /transaction type not supported/);
});

test("a sender who can pay gas and value but not the L1 fee is refused, as op-geth's pool does", async () => {
  const account = privateKeyToAccount(generatePrivateKey());
  const gas = 21_000n;
  const maxFeePerGas = 10_000_000_000n;
  const value = 1000n;
  // Exactly gas × fee cap + value, minted by a deposit: nothing left for the L1 fee.
  const hash = (await rpc("flashnode_depositTransaction", [
    { from: account.address, mint: `0x${(gas * maxFeePerGas + value).toString(16)}` },
  ])) as string;
  await pollUntil(
    () => rpc("eth_getTransactionReceipt", [hash]),
    (r) => r !== null,
  );
  const tx = (nonce: number, fee: bigint) =>
    account.signTransaction({
      chainId: Number(node.chainId),
      type: "eip1559",
      nonce,
      gas,
      maxFeePerGas: fee,
      maxPriorityFeePerGas: 1n,
      to: account.address,
      value,
    });
  // The deposit used the account's nonce 0 (a deposit bumps its sender's nonce).
  const nonce = Number(
    BigInt((await rpc("eth_getTransactionCount", [account.address, "pending"])) as string),
  );
  assert.equal(nonce, 1);
  await assert.rejects(
    rpc("eth_sendRawTransaction", [await tx(nonce, maxFeePerGas)]),
    /insufficient funds for gas \* price \+ value/,
  );
  // Half the fee cap leaves room for the L1 fee: accepted and run.
  const ok = (await rpc("eth_sendRawTransaction", [await tx(nonce, maxFeePerGas / 2n)])) as string;
  const receipt = (await pollUntil(
    () => rpc("eth_getTransactionReceipt", [ok]),
    (r) => r !== null,
  )) as Receipt;
  assert.equal(receipt.status, "0x1");
  assert.ok(BigInt(receipt.l1Fee as string) > 0n);
});
