// evm_snapshot / evm_revert over sealed blocks, on `flashnode dev --rpc-workers 2`: every reader
// answers from the unwound archive, subscriptions report the dropped logs `removed` and the new
// head, log filters report them too, /flashblocks streams the rebuilt block, the pool's nonces
// are the state's again, and a new block of a reverted number is read fresh (no stale head cache).
import assert from "node:assert/strict";
import type { Agent } from "node:http";
import { after, before, test } from "node:test";
import WebSocket from "ws";
import { devAccounts } from "../../src/chain/devGenesis.ts";
import { type CliNode, SEALS_ON_MINE, startReadersNode } from "../utils/cliNode.ts";
import { pollUntil, setCalldata, storageContractBytecode, word } from "../utils/devChain.ts";
import { tempDatadir } from "../utils/fixtures.ts";
import { stopChild } from "../utils/processes.ts";
import { readerAgents, rpcOn } from "../utils/readers.ts";
import { within } from "../utils/within.ts";

const KEY = "dev-revert-test-key";
// keccak256("Set(uint256)")
const SET_TOPIC = "0xdf7a95aebff315db1b7716215d602ab537373cdb769232aae6055c06e798425b";
const ZERO_HASH = `0x${"0".repeat(64)}`;
const from = devAccounts(1)[0]!.address.toLowerCase();
let primary: CliNode;
const agents = readerAgents();

before(async () => {
  primary = await startReadersNode("dev", tempDatadir("dev-revert"), KEY, SEALS_ON_MINE);
});

after(async () => {
  await stopChild(primary?.child);
});

function rpc<T = unknown>(method: string, params: unknown[] = [], agent?: Agent): Promise<T> {
  return rpcOn(primary.dedicatedUrl, agent, method, params) as Promise<T>;
}

/** Sends through eth_sendTransaction and waits for the pre-confirmation; the hash. */
async function send(tx: Record<string, string>): Promise<string> {
  const hash = await rpc<string>("eth_sendTransaction", [{ from, ...tx }]);
  await pollUntil(
    () => rpc("eth_getTransactionReceipt", [hash]),
    (r) => r !== null,
  );
  return hash;
}

type Notification = { params?: { subscription: string; result: Record<string, unknown> } };

test("evm_revert over sealed blocks: readers, subscriptions, filters and /flashblocks follow", async () => {
  const deployHash = await send({ data: storageContractBytecode(SET_TOPIC) });
  const contract = (
    await rpc<{ contractAddress: string }>("eth_getTransactionReceipt", [deployHash])
  ).contractAddress;
  await rpc("evm_mine");
  const base = Number(await rpc<string>("eth_blockNumber"));
  const baseHash = (await rpc<{ hash: string }>("eth_getBlockByNumber", ["latest", false])).hash;

  // Listeners on both readers (a socket each; the cluster spreads connections).
  const events: Notification[][] = [[], []];
  const flashblocks: Array<{
    index: number;
    payload_id: string;
    metadata: { block_number: number };
  }> = [];
  const sockets: WebSocket[] = [];
  for (let i = 0; i < 2; i++) {
    const ws = new WebSocket(`${primary.url.replace(/^http/, "ws")}rpc/${KEY}`);
    ws.on("message", (d: Buffer) => events[i]!.push(JSON.parse(d.toString()) as Notification));
    await new Promise((r) => ws.once("open", r));
    ws.send(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newHeads"] }),
    );
    ws.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "eth_subscribe",
        params: ["logs", { address: contract }],
      }),
    );
    sockets.push(ws);
  }
  const fb = new WebSocket(`${primary.url.replace(/^http/, "ws")}flashblocks`);
  fb.on("message", (d: Buffer) => flashblocks.push(JSON.parse(d.toString())));
  sockets.push(fb);
  const filter = await rpc<string>("eth_newFilter", [{ address: contract }], agents[0]);

  const id = await rpc<string>("evm_snapshot");
  assert.match(id, /^0x[0-9a-f]+$/);
  const nonceAtSnapshot = await rpc<string>("eth_getTransactionCount", [from, "pending"]);
  const hashes: string[] = [];
  hashes.push(await send({ to: contract, data: setCalldata(1n) }));
  await rpc("evm_mine");
  hashes.push(await send({ to: contract, data: setCalldata(2n) }));
  await rpc("evm_mine");
  // The third stays pre-confirmed in the block being built.
  hashes.push(await send({ to: contract, data: setCalldata(3n) }));
  assert.equal(Number(await rpc<string>("eth_blockNumber")), base + 2);
  assert.equal(await rpc("eth_getStorageAt", [contract, "0x0", "latest"]), word(2n));
  // Both readers have read the head's slot (their head caches hold it).
  for (const agent of agents)
    assert.equal(await rpc("eth_getStorageAt", [contract, "0x0", "latest"], agent), word(2n));
  const logsBefore = await rpc<unknown[]>("eth_getLogs", [
    { address: contract, fromBlock: `0x${(base + 1).toString(16)}`, toBlock: "latest" },
  ]);
  assert.equal(logsBefore.length, 2);
  const seenBefore = events.map((e) => e.length);
  const flashblocksBefore = flashblocks.length;

  assert.equal(await rpc("evm_revert", [id]), true);

  for (const agent of agents) {
    assert.equal(Number(await rpc<string>("eth_blockNumber", [], agent)), base);
    assert.equal(await rpc("eth_getStorageAt", [contract, "0x0", "latest"], agent), word(42n));
    assert.equal(await rpc("eth_getStorageAt", [contract, "0x0", "pending"], agent), word(42n));
    for (const h of hashes) {
      assert.equal(await rpc("eth_getTransactionReceipt", [h], agent), null);
      assert.equal(await rpc("flashnode_getTransactionTimes", [h], agent), null);
    }
    assert.equal(
      await rpc("eth_getBlockByNumber", [`0x${(base + 1).toString(16)}`, false], agent),
      null,
    );
    assert.equal(await rpc("eth_getTransactionCount", [from, "pending"], agent), nonceAtSnapshot);
    assert.deepEqual(
      await rpc("eth_getLogs", [{ address: contract, fromBlock: `0x${base.toString(16)}` }], agent),
      [],
    );
  }
  // Used up, with every later snapshot (anvil).
  assert.equal(await rpc("evm_revert", [id]), false);

  // Each reader's subscribers: the three dropped logs (sealed ones oldest first, then the
  // pre-confirmed one), removed, then the new head.
  for (const [i, list] of events.entries()) {
    const after = await pollUntil(
      async () => list.slice(seenBefore[i]),
      (l) => l.some((n) => n.params?.result.number === `0x${base.toString(16)}`),
    );
    const removed = after.map((n) => n.params?.result).filter((r) => r?.removed === true) as Array<{
      transactionHash: string;
      blockHash: string;
    }>;
    assert.deepEqual(
      removed.map((r) => r.transactionHash),
      hashes,
      `reader socket ${i}: removed logs`,
    );
    assert.equal(removed[2]!.blockHash, ZERO_HASH);
    const head = after.find((n) => n.params?.result.number !== undefined)!.params!.result;
    assert.equal(head.hash, baseHash);
  }
  // The filter's holder reports them removed too.
  const changes = await rpc<Array<{ removed: boolean; transactionHash: string }>>(
    "eth_getFilterChanges",
    [filter],
    agents[0],
  );
  assert.deepEqual(
    changes.filter((c) => c.removed).map((c) => c.transactionHash),
    hashes,
  );
  // /flashblocks: the block on the reverted head starts again, as a new payload.
  const rebuilt = await pollUntil(
    async () => flashblocks.slice(flashblocksBefore).find((f) => f.index === 0),
    (f) => f !== undefined,
  );
  assert.equal(rebuilt!.metadata.block_number, base + 1);

  // A new block of a reverted number: every reader reads its state, not a cached one.
  const redo = await send({ to: contract, data: setCalldata(9n) });
  await rpc("evm_mine");
  for (const agent of agents) {
    assert.equal(Number(await rpc<string>("eth_blockNumber", [], agent)), base + 1);
    assert.equal(await rpc("eth_getStorageAt", [contract, "0x0", "latest"], agent), word(9n));
    const receipt = await rpc<{ blockNumber: string }>("eth_getTransactionReceipt", [redo], agent);
    assert.equal(Number(receipt.blockNumber), base + 1);
  }
  // Closed (each reader answered the close), and each reader answered once more since.
  const closed = sockets.map((s) => new Promise((resolve) => s.once("close", resolve)));
  for (const s of sockets) s.close();
  await within(Promise.all(closed), "the sockets' close");
  for (const agent of agents) await rpc("eth_blockNumber", [], agent);
  assert.doesNotMatch(primary.output(), /error|reader exited/i, primary.output());
});

test("a state write through one reader is in pending through the other when it answers", async () => {
  const a = "0x4000000000000000000000000000000000000004";
  for (const [i, agent] of agents.entries()) {
    const value = `0x${(1000 + i).toString(16)}`;
    assert.equal(await rpc("anvil_setBalance", [a, value], agent), null);
    // No polling: the other reader waits for the update its client may have seen (the fence).
    assert.equal(await rpc("eth_getBalance", [a, "pending"], agents[1 - i]), value);
  }
});
