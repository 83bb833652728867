// eth_subscribe("newPendingTransactions") over the JSON-RPC WebSocket: viem's
// watchPendingTransactions gets each sent transaction's hash as it is pre-confirmed (not the
// blocks' L1-info deposits); with `true`, whole transactions as a pool renders them, as geth and
// anvil send them.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createPublicClient, webSocket } from "viem";
import WebSocket from "ws";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import { pollUntil, signTransfer, startTestDevNode } from "../utils/devChain.ts";
import { rpcCaller } from "../utils/fixtures.ts";

let node: DevNode;
const X = "0x1000000000000000000000000000000000000001";

const rpc = rpcCaller(() => node.dedicatedUrl);

before(async () => {
  node = await startTestDevNode({ blockTimeMs: 500, flashblockIntervalMs: 50 });
});
after(async () => {
  await node.close();
});

test("viem's watchPendingTransactions over WebSocket: each sent transaction's hash, once", async () => {
  const client = createPublicClient({ transport: webSocket(node.wsUrl) });
  const seen: string[] = [];
  const unwatch = client.watchPendingTransactions({
    onTransactions: (hashes) => seen.push(...hashes),
  });
  try {
    // viem subscribes in the background: probe transactions until one is reported (each probe's
    // pre-confirmation is over once its receipt is there).
    let nonce = 0;
    const probes: string[] = [];
    for (;;) {
      const probe = await rpc<string>("eth_sendRawTransaction", [
        await signTransfer(node, 6, { nonce: nonce++, to: X, value: 1n }),
      ]);
      probes.push(probe);
      await pollUntil(
        () => rpc("eth_getTransactionReceipt", [probe]),
        (r) => r !== null,
      );
      if (seen.includes(probe)) break;
    }
    const sent: string[] = [];
    for (let i = 0; i < 3; i++)
      sent.push(
        await rpc<string>("eth_sendRawTransaction", [
          await signTransfer(node, 6, { nonce: nonce++, to: X, value: 1n }),
        ]),
      );
    await pollUntil(
      async () => sent.every((h) => seen.includes(h)),
      (all) => all,
    );
    // Two more blocks sealed: still only ours (no L1-info deposit, nothing twice).
    const head = Number(await rpc<string>("eth_blockNumber"));
    await pollUntil(
      () => rpc<string>("eth_blockNumber"),
      (n) => Number(n) >= head + 2,
    );
    // Ours, each once, in order; nothing else (a late probe may come before them).
    assert.deepEqual(
      seen.filter((h) => sent.includes(h)),
      sent,
    );
    assert.deepEqual(
      seen.filter((h) => !sent.includes(h) && !probes.includes(h)),
      [],
    );
    assert.equal(new Set(seen).size, seen.length);
  } finally {
    unwatch();
    await client.transport.getRpcClient().then((c) => c.close());
  }
});

test('eth_subscribe("newPendingTransactions", true): whole transactions, as a pool renders them', async () => {
  const ws = new WebSocket(node.wsUrl);
  const messages: Array<{ id?: number; result?: unknown; params?: { result: unknown } }> = [];
  ws.on("message", (d: Buffer) => messages.push(JSON.parse(d.toString())));
  await new Promise((r) => ws.once("open", r));
  try {
    ws.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "eth_subscribe",
        params: ["newPendingTransactions", true],
      }),
    );
    await pollUntil(
      async () => messages.find((m) => m.id === 1),
      (m) => m !== undefined,
    );
    const hash = await rpc<string>("eth_sendRawTransaction", [
      await signTransfer(node, 7, { nonce: 0, to: X, value: 9n }),
    ]);
    const note = await pollUntil(
      async () => messages.find((m) => m.params !== undefined),
      (m) => m !== undefined,
    );
    const tx = note!.params!.result as Record<string, unknown>;
    assert.equal(tx.hash, hash);
    assert.equal(tx.from, node.accounts[7]!.address.toLowerCase());
    assert.equal(tx.to, X);
    assert.equal(tx.value, "0x9");
    assert.equal(tx.nonce, "0x0");
    assert.equal(tx.blockHash, null);
    assert.equal(tx.blockNumber, null);
    assert.equal(tx.transactionIndex, null);
  } finally {
    ws.close();
  }
});
