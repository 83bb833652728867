// The block being built takes what a dev method asks for it even when it already holds
// pre-confirmed transactions: a new time (evm_setNextBlockTimestamp, evm_increaseTime), a base
// fee (anvil_setNextBlockBaseFeePerGas), a transaction less (anvil_dropTransaction). It is
// rebuilt with them, and the stream says so as for evm_revert: the pre-confirmed logs come
// `removed`, /flashblocks starts the same height again with a new payload_id and publishes the
// transactions again; no new head. Then evm_mine seals it as asked, as anvil does.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import WebSocket from "ws";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import {
  pollUntil,
  setCalldata,
  startTestDevNode,
  storageContractBytecode,
  word,
} from "../utils/devChain.ts";
import { rpcCaller } from "../utils/fixtures.ts";

// keccak256("Set(uint256)")
const SET_TOPIC = "0xdf7a95aebff315db1b7716215d602ab537373cdb769232aae6055c06e798425b";
const ZERO_HASH = `0x${"0".repeat(64)}`;

type Flashblock = {
  index: number;
  payload_id: string;
  diff: { transactions: string[] };
  metadata: { block_number: number };
};
type Note = { method?: string; params?: { result: Record<string, unknown> } };
type Block = { number: string; timestamp: string; baseFeePerGas: string; transactions: string[] };

let node: DevNode;
let contract: string;
let from: string;
const sockets: WebSocket[] = [];
const flashblocks: Flashblock[] = [];
const notes: Note[] = [];

const rpc = rpcCaller(() => node.dedicatedUrl);
const block = (tag: string) => rpc<Block>("eth_getBlockByNumber", [tag, false]);
const receipt = (hash: string) =>
  rpc<{ blockNumber: string; blockHash: string } | null>("eth_getTransactionReceipt", [hash]);

/** Sends set(value) to the contract and waits for its pre-confirmation. */
async function preconfirmed(value: bigint, nonce?: number): Promise<string> {
  const hash = await rpc<string>("eth_sendTransaction", [
    {
      from,
      to: contract,
      data: setCalldata(value),
      ...(nonce === undefined ? {} : { nonce: `0x${nonce.toString(16)}` }),
    },
  ]);
  if (nonce !== undefined) return hash;
  const r = await pollUntil(
    () => receipt(hash),
    (x) => x !== null,
  );
  assert.equal(r!.blockHash, ZERO_HASH, "pre-confirmed, not sealed");
  return hash;
}

before(async () => {
  node = await startTestDevNode({ blockTimeMs: 3_600_000, flashblockIntervalMs: 50 });
  from = node.accounts[0]!.address;
  const deploy = await rpc<string>("eth_sendTransaction", [
    { from, data: storageContractBytecode(SET_TOPIC) },
  ]);
  contract = (await pollUntil(
    () => rpc<{ contractAddress: string } | null>("eth_getTransactionReceipt", [deploy]),
    (r) => r !== null,
  ))!.contractAddress;
  await rpc("evm_mine");
  const fb = new WebSocket(`${node.wsUrl}flashblocks`);
  fb.on("message", (d: Buffer) => flashblocks.push(JSON.parse(d.toString()) as Flashblock));
  const ws = new WebSocket(node.wsUrl);
  ws.on("message", (d: Buffer) => notes.push(JSON.parse(d.toString()) as Note));
  sockets.push(fb, ws);
  await Promise.all(sockets.map((s) => new Promise((r) => s.once("open", r))));
  ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newHeads"] }));
  ws.send(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "eth_subscribe",
      params: ["logs", { address: contract }],
    }),
  );
  await pollUntil(
    async () => notes.filter((n) => n.method === undefined).length,
    (n) => n === 2,
  );
});
after(async () => {
  for (const s of sockets) s.close();
  await node.close();
});

test("evm_setNextBlockTimestamp + evm_mine with a pre-confirmed transaction waiting seals it at that time", async () => {
  const hash = await preconfirmed(5n);
  const pending = await block("pending");
  const number = Number(pending.number);
  const payload = flashblocks.findLast((f) => f.metadata.block_number === number)!.payload_id;
  const seenNotes = notes.length;
  const seenFlashblocks = flashblocks.length;
  const t = BigInt(pending.timestamp) + 1000n;

  assert.equal(await rpc("evm_setNextBlockTimestamp", [`0x${t.toString(16)}`]), null);
  // The block being built has the new time, and still the transaction.
  const rebuilt = await block("pending");
  assert.equal(Number(rebuilt.number), number);
  assert.equal(BigInt(rebuilt.timestamp), t);
  assert.equal(Number((await receipt(hash))!.blockNumber), number);
  assert.equal(await rpc("eth_getStorageAt", [contract, "0x0", "pending"]), word(5n));
  // The stream said so: the same height again under a new payload id, the transaction again.
  const again = await pollUntil(
    async () => flashblocks.slice(seenFlashblocks),
    (l) => l.some((f) => f.index > 0 && f.diff.transactions.length > 0),
  );
  const opening = again.find((f) => f.index === 0)!;
  assert.equal(opening.metadata.block_number, number);
  assert.notEqual(opening.payload_id, payload);
  // Subscribers: the pre-confirmed log removed, then pre-confirmed again; no new head.
  const logs = await pollUntil(
    async () =>
      notes
        .slice(seenNotes)
        .map((n) => n.params?.result)
        .filter((r) => r?.transactionHash === hash),
    (l) => l.length >= 1,
  );
  assert.equal(logs[0]!.removed, true);
  assert.equal(
    notes.slice(seenNotes).filter((n) => n.params?.result.number !== undefined).length,
    0,
  );

  await rpc("evm_mine");
  const latest = await block("latest");
  assert.equal(Number(latest.number), number);
  assert.equal(BigInt(latest.timestamp), t);
  assert.deepEqual(latest.transactions, [...latest.transactions.slice(0, -1), hash]);
  const sealed = await receipt(hash);
  assert.notEqual(sealed!.blockHash, ZERO_HASH);
  assert.equal(await rpc("eth_getStorageAt", [contract, "0x0", "latest"]), word(5n));
});

test("evm_increaseTime + evm_mine with a pre-confirmed transaction waiting: the block takes the new time", async () => {
  const before = BigInt((await block("latest")).timestamp);
  const hash = await preconfirmed(6n);
  const opened = BigInt((await block("pending")).timestamp);
  assert.ok(opened < before + 3600n);
  // The clock moves on by an hour (anvil's offset): the block being built is an hour later.
  await rpc("evm_increaseTime", [3600]);
  assert.ok(BigInt((await block("pending")).timestamp) >= before + 3600n);
  await rpc("evm_mine");
  const latest = await block("latest");
  assert.ok(BigInt(latest.timestamp) >= before + 3600n, `${latest.timestamp} vs ${before}`);
  assert.equal(latest.transactions.at(-1), hash);
});

test("anvil_setNextBlockBaseFeePerGas: the block being built takes it, transactions and all", async () => {
  const hash = await preconfirmed(7n);
  assert.equal(await rpc("anvil_setNextBlockBaseFeePerGas", ["0x3039"]), null);
  assert.equal((await block("pending")).baseFeePerGas, "0x3039");
  assert.equal(await rpc("eth_getStorageAt", [contract, "0x0", "pending"]), word(7n));
  await rpc("evm_mine");
  const latest = await block("latest");
  assert.equal(latest.baseFeePerGas, "0x3039");
  assert.equal(latest.transactions.at(-1), hash);
  const r = await rpc<{ effectiveGasPrice: string }>("eth_getTransactionReceipt", [hash]);
  assert.ok(BigInt(r.effectiveGasPrice) < 1_000_000_000n + 0x3039n + 1n);
  // The next block follows EIP-1559 from it: not the override again.
  const next = await block("pending");
  assert.notEqual(next.baseFeePerGas, "0x3039");
});

test("anvil_dropTransaction: out of the block being built, or out of the pool; else null", async () => {
  const kept = await preconfirmed(8n);
  const dropped = await preconfirmed(9n);
  assert.equal(await rpc("eth_getStorageAt", [contract, "0x0", "pending"]), word(9n));
  assert.equal(await rpc("anvil_dropTransaction", [dropped]), dropped);
  assert.equal(await receipt(dropped), null);
  assert.equal(await rpc("eth_getStorageAt", [contract, "0x0", "pending"]), word(8n));
  assert.equal((await receipt(kept))!.blockHash, ZERO_HASH);
  assert.equal(await rpc("hardhat_dropTransaction", [dropped]), null);
  // One behind a nonce gap waits in the pool: dropped from there.
  const nonce = Number(await rpc<string>("eth_getTransactionCount", [from, "pending"]));
  const queued = await preconfirmed(10n, nonce + 5);
  assert.equal(await rpc("anvil_dropTransaction", [queued]), queued);
  const content = await rpc<{ queued: Record<string, unknown> }>("txpool_content");
  assert.deepEqual(content.queued, {});
  await rpc("evm_mine");
  assert.equal(await rpc("eth_getStorageAt", [contract, "0x0", "latest"]), word(8n));
});
