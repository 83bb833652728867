// The pool of `flashnode dev` as txpool_* show it: a transaction stays "pending" from its
// acceptance until a sealed block includes it (pre-confirmed or not yet), one behind a nonce gap
// is "queued" until the gap fills, and the sealed block empties the pool.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { toChecksumAddress } from "@ethereumjs/util";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import { pollUntil, signTransfer, startTestDevNode } from "../utils/devChain.ts";
import { call } from "../utils/fixtures.ts";

let node: DevNode;
type Status = { pending: string; queued: string };
type Content = {
  pending: Record<string, Record<string, { hash: string; blockHash: null }>>;
  queued: Record<string, Record<string, { hash: string }>>;
};

before(async () => {
  // Seals only on evm_mine.
  node = await startTestDevNode({ blockTimeMs: 600_000, flashblockIntervalMs: 50 });
});
after(async () => {
  await node?.close();
});

test("pre-confirmed and waiting transactions are pending, a gap is queued, a seal empties the pool", async () => {
  const url = node.dedicatedUrl;
  const sender = toChecksumAddress(node.accounts[1]!.address);
  const first = await call(url, "eth_sendRawTransaction", [
    await signTransfer(node, 1, { nonce: 0 }),
  ]);
  const third = await call(url, "eth_sendRawTransaction", [
    await signTransfer(node, 1, { nonce: 2 }),
  ]);
  // The first is pre-confirmed within a flashblock; it is still in the pool.
  await pollUntil(
    () => call(url, "eth_getTransactionReceipt", [first]),
    (r) => r !== null,
  );
  assert.deepEqual(await call(url, "txpool_status"), { pending: "0x1", queued: "0x1" });
  const content = (await call(url, "txpool_content")) as Content;
  assert.deepEqual(Object.keys(content.pending), [sender]);
  assert.equal(content.pending[sender]!["0"]!.hash, first);
  assert.equal(content.pending[sender]!["0"]!.blockHash, null);
  assert.equal(content.queued[sender]!["2"]!.hash, third);
  const from = (await call(url, "txpool_contentFrom", [sender])) as Record<string, unknown>;
  assert.deepEqual(Object.keys(from), ["pending", "queued"]);

  // The gap filled: both run, all three pending.
  await call(url, "eth_sendRawTransaction", [await signTransfer(node, 1, { nonce: 1 })]);
  await pollUntil(
    () => call(url, "txpool_status") as Promise<Status>,
    (s) => s.pending === "0x3" && s.queued === "0x0",
  );
  await call(url, "evm_mine");
  assert.deepEqual(await call(url, "txpool_status"), { pending: "0x0", queued: "0x0" });
  assert.deepEqual(await call(url, "txpool_content"), { pending: {}, queued: {} });
});
