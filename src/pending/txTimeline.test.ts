import assert from "node:assert/strict";
import { test } from "node:test";
import { testFlashblock } from "../../test/utils/flashnodeTimeline.ts";
import { bytesToHex } from "../util/hex.ts";
import { TxTimeline } from "./txTimeline.ts";
import type { FlashblockUpdate, PendingTransaction } from "./types.ts";

/** A transaction whose hash is `id` repeated; type 2, or a 0x7e deposit. */
function tx(id: number, receivedAt?: number, deposit = false): PendingTransaction {
  return {
    hash: new Uint8Array(32).fill(id),
    raw: Uint8Array.of(deposit ? 0x7e : 0x02, 0xc0),
    ...(receivedAt === undefined ? {} : { receivedAt }),
  };
}

/** A flashblock of `transactions` (test/utils/flashnodeTimeline.ts). */
function flashblock(
  number: number,
  index: number,
  publishedAt: number,
  transactions: PendingTransaction[] = [],
  gasUsed = 0n,
): FlashblockUpdate {
  return testFlashblock(number, index, publishedAt, transactions, gasUsed);
}

const hashOf = (id: number) => bytesToHex(new Uint8Array(32).fill(id));

test("a transaction's intake, pre-confirmation and seal times; deposits have no latency", () => {
  const t = new TxTimeline();
  // Block 5: index 0 holds an L1-info deposit alone (OP stack), index 1 a user transaction.
  t.flashblock(flashblock(5, 0, 1_000, [tx(1, undefined, true)], 40_000n));
  t.flashblock(flashblock(5, 1, 1_200, [tx(2, 1_130.25)], 61_000n));
  const user = t.transaction(hashOf(2).toUpperCase().replace("0X", "0x"));
  assert.ok(user !== undefined, "looked up whatever the hex letter case");
  assert.equal(user.receivedAt, 1_130.25);
  assert.equal(user.preconfirmedAt, 1_200);
  assert.equal(user.flashblockIndex, 1);
  assert.equal(user.transactionIndex, 1);
  assert.equal(user.deposit, false);
  assert.equal(user.sealedAt, undefined);
  const deposit = t.transaction(hashOf(1));
  assert.equal(deposit?.deposit, true);
  assert.equal(deposit?.receivedAt, undefined);

  // Only the user transaction has a latency sample.
  assert.deepEqual(t.latency(0, 1_300), [[1_200, 69.75, hashOf(2)]]);

  const blockHash = new Uint8Array(32).fill(0xbb);
  t.sealed(5, blockHash, 2_010);
  assert.equal(t.transaction(hashOf(2))?.sealedAt, 2_010);
  assert.equal(t.transaction(hashOf(2))?.blockHash, bytesToHex(blockHash));
  assert.equal(t.transaction(hashOf(1))?.sealedAt, 2_010);
  const [block] = t.blocks();
  assert.equal(block?.number, 5);
  assert.equal(block?.hash, bytesToHex(blockHash));
  assert.deepEqual(
    block?.flashblocks.map((f) => [f.index, f.transactions, f.deposits, f.gasUsed]),
    [
      [0, 1, 1, 40_000n],
      [1, 1, 0, 61_000n],
    ],
  );
  assert.equal(block?.transactionCount, 2);
  assert.equal(block?.flashblockCount, 2);
});

test("intervals are between slots (index ≥ 1), across a seal; samples after `since`, in the window", () => {
  const t = new TxTimeline({ windowMs: 1_000 });
  t.flashblock(flashblock(1, 1, 200));
  t.flashblock(flashblock(1, 2, 400));
  t.flashblock(flashblock(2, 0, 404)); // with the seal: not a slot
  t.flashblock(flashblock(2, 1, 601));
  assert.deepEqual(t.intervals(0, 700), [
    [400, 200],
    [601, 201],
  ]);
  assert.deepEqual(t.intervals(400, 700), [[601, 201]], "only after since");
  assert.deepEqual(t.intervals(0, 1_450), [[601, 201]], "only within the window");
  t.flashblock(flashblock(2, 2, 3_000, [tx(9, 2_950)]));
  assert.deepEqual(t.intervals(0, 3_000), [[3_000, 2_399]], "older samples are dropped");
  assert.deepEqual(t.latency(0, 3_000), [[3_000, 50, hashOf(9)]]);
});

test("bounded: the newest transactions, blocks, flashblocks and samples only", () => {
  const t = new TxTimeline({ transactions: 3, blocks: 2, samples: 2, flashblocksPerBlock: 3 });
  for (let n = 1; n <= 4; n++) t.flashblock(flashblock(n, 1, n * 100, [tx(n, n * 100 - 10)]));
  assert.equal(t.transaction(hashOf(1)), undefined, "the oldest transaction is forgotten");
  assert.ok(t.transaction(hashOf(2)) !== undefined);
  assert.ok(t.transaction(hashOf(4)) !== undefined);
  assert.deepEqual(
    t.blocks().map((b) => b.number),
    [4, 3],
    "newest first",
  );
  assert.deepEqual(
    t.latency(0, 400).map((s) => s[2]),
    [hashOf(3), hashOf(4)],
  );
  // A block no longer kept: its kept transactions are still marked sealed.
  t.sealed(2, new Uint8Array(32), 500);
  assert.equal(t.transaction(hashOf(2))?.sealedAt, 500);
  assert.equal(t.transaction(hashOf(3))?.sealedAt, undefined);
  // A long block time: the newest flashblocks are kept, all are counted.
  for (let i = 2; i <= 6; i++) t.flashblock(flashblock(4, i, 400 + i * 200));
  const [block] = t.blocks();
  assert.deepEqual(
    block?.flashblocks.map((f) => f.index),
    [4, 5, 6],
  );
  assert.equal(block?.flashblockCount, 6);
});

test("evm_revert: the blocks above the head it went back to, and their transactions, are forgotten", () => {
  const timeline = new TxTimeline();
  const base = {
    kind: "flashblock" as const,
    receipts: [],
    diff: { accounts: [], storage: [], wiped: [], code: [] },
    gasUsed: 0n,
    blobGasUsed: 0n,
    logsBloom: new Uint8Array(256),
    receiptsRoot: new Uint8Array(32),
    transactionsRoot: new Uint8Array(32),
    wireJson: "{}",
    buildMs: 0,
  };
  const block = (number: number) => ({ number }) as unknown as FlashblockUpdate["base"];
  const tx = (n: number) => ({ hash: new Uint8Array(32).fill(n), raw: Uint8Array.of(2) });
  for (let n = 1; n <= 3; n++)
    timeline.flashblock({
      ...base,
      base: block(n),
      index: 1,
      transactions: [tx(n)],
      publishedAt: n,
    });
  timeline.reverted(1);
  assert.notEqual(timeline.transaction(bytesToHex(new Uint8Array(32).fill(1))), undefined);
  assert.equal(timeline.transaction(bytesToHex(new Uint8Array(32).fill(2))), undefined);
  assert.equal(timeline.transaction(bytesToHex(new Uint8Array(32).fill(3))), undefined);
});
