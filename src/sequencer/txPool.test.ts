// The pool's order and bounds on real signed transactions: what runs next is the earliest arrival
// among the senders whose next nonce waits, a transaction put back keeps its place, and geth's
// limits refuse with geth's errors.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { createFeeMarket1559Tx, type TypedTransaction } from "@ethereumjs/tx";
import type { AccountRecord } from "../chain/types.ts";
import { bytesToHex } from "../util/hex.ts";
import { type PoolContext, type PooledTx, type PoolLimits, TxPool } from "./txPool.ts";

const common = createCustomCommon({ chainId: 31337 }, Mainnet, { hardfork: Hardfork.Prague });
const keys = [1, 2, 3, 4].map((i) => new Uint8Array(32).fill(i));

/** `bump`: a replacement's fees, each doubled. */
function transfer(from: number, nonce: number, bump = false): TypedTransaction {
  return createFeeMarket1559Tx(
    {
      chainId: 31337n,
      nonce: BigInt(nonce),
      gasLimit: 21_000n,
      maxFeePerGas: bump ? 2n * 10n ** 10n : 10n ** 10n,
      maxPriorityFeePerGas: bump ? 2n : 1n,
      to: new Uint8Array(20).fill(9),
      value: 1n,
    },
    { common },
  ).sign(keys[from]!);
}

/** Every sender funded, at nonce `nonces[address]` (0 if not given). */
function context(nonces: Record<string, bigint> = {}): PoolContext {
  return {
    common,
    baseFee: 1n,
    blockGasLimit: 30_000_000n,
    account: (a): AccountRecord => ({
      nonce: nonces[bytesToHex(a)] ?? 0n,
      balance: 10n ** 21n,
      codeHash: undefined,
    }),
    sealedNonce: () => 0n,
  };
}

const senderOf = (from: number) => bytesToHex(transfer(from, 0).getSenderAddress().bytes);
const label = (e: PooledTx | undefined) =>
  e === undefined
    ? "none"
    : `${[0, 1, 2, 3].find((i) => senderOf(i) === `0x${e.sender}`)}:${e.nonce}`;

function takeAll(pool: TxPool, block = 1): string[] {
  const out: string[] = [];
  for (let e = pool.takeNext(0, block); e !== undefined; e = pool.takeNext(0, block))
    out.push(label(e));
  return out;
}

test("transactions run in arrival order, each sender's by nonce, a gap waiting for its nonce", () => {
  const pool = new TxPool();
  const ctx = context();
  // Sender 1's nonce 1 arrives before its nonce 0: it runs after it, still before later arrivals.
  for (const [from, nonce] of [
    [0, 0],
    [1, 1],
    [2, 0],
    [1, 0],
    [0, 1],
    [3, 2],
  ] as const)
    pool.add(transfer(from, nonce), 120, ctx);
  assert.deepEqual(takeAll(pool), ["0:0", "2:0", "1:0", "1:1", "0:1"]);
  // Sender 3's nonce 2 waits behind its gap.
  assert.equal(pool.size, 1);
  pool.add(transfer(3, 0), 120, ctx);
  pool.add(transfer(3, 1), 120, ctx);
  assert.deepEqual(takeAll(pool), ["3:0", "3:1", "3:2"]);
});

test("a transaction put back keeps its place in the arrival order (a budget cut, a full block)", () => {
  const pool = new TxPool();
  const ctx = context();
  for (let i = 0; i < 3; i++)
    for (let from = 0; from < 3; from++) pool.add(transfer(from, i), 120, ctx);
  const first = pool.takeNext(0, 1)!;
  const second = pool.takeNext(0, 1)!;
  assert.deepEqual([label(first), label(second)], ["0:0", "1:0"]);
  // Both go back (in either order) and a later arrival comes meanwhile: the order is as before.
  pool.putBack(second);
  pool.putBack(first);
  pool.add(transfer(3, 0), 120, ctx);
  assert.deepEqual(takeAll(pool), [
    "0:0",
    "1:0",
    "2:0",
    "0:1",
    "1:1",
    "2:1",
    "0:2",
    "1:2",
    "2:2",
    "3:0",
  ]);
});

test("a transaction that did not fit waits for the next block, its sender's later ones with it", () => {
  const pool = new TxPool();
  const ctx = context();
  for (const [from, nonce] of [
    [0, 0],
    [0, 1],
    [1, 0],
  ] as const)
    pool.add(transfer(from, nonce), 120, ctx);
  const big = pool.takeNext(0, 7)!;
  pool.putBack(big, { notInBlock: 7 });
  assert.deepEqual(takeAll(pool, 7), ["1:0"]);
  assert.deepEqual(takeAll(pool, 8), ["0:0", "0:1"]);
});

test("a transaction dropped at execution leaves its sender's later ones queued for its nonce", () => {
  const pool = new TxPool();
  const ctx = context();
  pool.add(transfer(0, 0), 120, ctx);
  pool.add(transfer(0, 1), 120, ctx);
  pool.dropped(pool.takeNext(0, 1)!);
  assert.deepEqual(takeAll(pool), []);
  assert.equal(pool.size, 1);
  // A new nonce 0 (another transaction) lets it run.
  pool.add(transfer(0, 0, true), 120, ctx);
  assert.deepEqual(takeAll(pool), ["0:0", "0:1"]);
});

test("restored transactions go in front of what waits, in their order", () => {
  const pool = new TxPool();
  const ctx = context();
  pool.add(transfer(2, 0), 120, ctx);
  pool.restore([transfer(1, 0), transfer(0, 0)]);
  assert.deepEqual(takeAll(pool), ["1:0", "0:0", "2:0"]);
});

const SMALL: PoolLimits = { accountSlots: 2, globalSlots: 4, accountQueue: 2, globalQueue: 3 };
const ROOMY_SLOTS: PoolLimits = { ...SMALL, globalSlots: 10 };

function refusal(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return "accepted";
}

test("a sender's queue beyond accountQueue: account limit exceeded; everyone's beyond globalQueue: txpool is full", () => {
  const pool = new TxPool(ROOMY_SLOTS);
  const ctx = context();
  pool.add(transfer(0, 5), 120, ctx);
  pool.add(transfer(0, 6), 120, ctx);
  assert.equal(
    refusal(() => pool.add(transfer(0, 7), 120, ctx)),
    "account limit exceeded: 2 queued transactions",
  );
  pool.add(transfer(1, 5), 120, ctx);
  assert.equal(
    refusal(() => pool.add(transfer(2, 5), 120, ctx)),
    "txpool is full",
  );
  // An executable one still fits; a replacement takes no new room.
  assert.equal(
    refusal(() => pool.add(transfer(2, 0), 120, ctx)),
    "accepted",
  );
  assert.equal(
    refusal(() => pool.add(transfer(0, 6, true), 120, ctx)),
    "accepted",
  );
  // Filling the gap makes sender 0's queued ones executable: its queue has room again.
  for (let n = 0; n < 5; n++) pool.add(transfer(0, n), 120, ctx);
  assert.equal(
    refusal(() => pool.add(transfer(0, 8), 120, ctx)),
    "accepted",
  );
});

test("executable slots: past globalSlots a sender keeps accountSlots; the whole pool is bounded", () => {
  const pool = new TxPool(SMALL);
  const ctx = context();
  for (let n = 0; n < 4; n++) pool.add(transfer(0, n), 120, ctx);
  // globalSlots (4) taken: sender 0 is past its 2 guaranteed, sender 1 is not.
  assert.equal(
    refusal(() => pool.add(transfer(0, 4), 120, ctx)),
    "txpool is full",
  );
  pool.add(transfer(1, 0), 120, ctx);
  pool.add(transfer(1, 1), 120, ctx);
  assert.equal(
    refusal(() => pool.add(transfer(1, 2), 120, ctx)),
    "txpool is full",
  );
  // Running some frees slots.
  takeAll(pool);
  assert.equal(pool.size, 0);
  assert.equal(
    refusal(() => pool.add(transfer(0, 4), 120, context({ [senderOf(0)]: 4n }))),
    "accepted",
  );
  // The whole pool: globalSlots + globalQueue.
  const full = new TxPool({ accountSlots: 10, globalSlots: 2, accountQueue: 10, globalQueue: 1 });
  full.add(transfer(0, 0), 120, ctx);
  full.add(transfer(1, 0), 120, ctx);
  full.add(transfer(2, 0), 120, ctx);
  assert.equal(
    refusal(() => full.add(transfer(3, 0), 120, ctx)),
    "txpool is full",
  );
  assert.equal(
    refusal(() => full.add(transfer(0, 0), 120, ctx)),
    "already known",
  );
});
