// The sequencer's pace, on a real archive and EVM in this process: a transaction sent while a
// backlog executes is taken into the pool after at most the one transaction executing (not behind
// the backlog), and a block holds the pool's transactions in the order they arrived (each sender's
// by nonce) however often ticks cut the execution; a seal is one durable write, the next block's
// flashblock 0 recorded in it.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { tempDatadir } from "../../test/utils/fixtures.ts";
import { startInProcessChain } from "../../test/utils/inProcessChain.ts";
import { within } from "../../test/utils/within.ts";
import { type DevAccount, devAccounts, devGenesis } from "../chain/devGenesis.ts";
import { chainSpecFromGenesis } from "../chain/genesis.ts";
import { encodeDeposit } from "../chain/op/depositTx.ts";
import { ensureGenesis } from "../exec/chainStart.ts";
import type { FlashblockUpdate, SealedUpdate } from "../pending/types.ts";
import type { ChainStore } from "../store/archive.ts";
import { createChainStore } from "../store/chainStore.ts";
import { type KvEnv, openKvEnv } from "../store/lmdb.ts";
import { keccak256 } from "../util/crypto.ts";
import { bytesToHex, hexToBytes } from "../util/hex.ts";
import { Sequencer, type SequencerOptions } from "./sequencer.ts";

const CHAIN_ID = 31337n;
const SENDERS = 4;
const accounts = devAccounts(SENDERS + 1);
const envs: KvEnv[] = [];
const sequencers: Sequencer[] = [];

type Chain = {
  readonly sequencer: Sequencer;
  readonly env: KvEnv;
  readonly store: ChainStore;
  readonly updates: (FlashblockUpdate | SealedUpdate)[];
  /** Resolves once the published flashblocks hold `count` transactions in all. */
  published(count: number): Promise<void>;
  /** A signed 1-wei transfer from account `from` at `nonce`. */
  transfer(from: number, nonce: number): Uint8Array;
};

let common: Awaited<ReturnType<typeof chainSpecFromGenesis>>["common"] | undefined;

/** A plain Ethereum dev chain's sequencer (no deposits), blocks sealed only when asked. */
async function startChain(opts: Partial<SequencerOptions>): Promise<Chain> {
  const genesis = devGenesis({
    chainId: CHAIN_ID,
    fork: "prague",
    accounts,
    balanceWei: 10n ** 21n,
    gasLimit: 30_000_000n,
    timestamp: BigInt(Math.floor(Date.now() / 1000)),
  });
  const spec = await chainSpecFromGenesis(genesis);
  common = spec.common;
  const env = openKvEnv(tempDatadir("sequencer-pace"), { noSync: true });
  envs.push(env);
  const store = createChainStore(env);
  const updates: (FlashblockUpdate | SealedUpdate)[] = [];
  let publishedCount = 0;
  const waiters: Array<{ count: number; resolve(): void }> = [];
  const onUpdate = (u: FlashblockUpdate | SealedUpdate) => {
    updates.push(u);
    publishedCount += (u.kind === "flashblock" ? u : u.next).transactions.length;
    for (const w of waiters.filter((w) => publishedCount >= w.count)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  const sequencer = new Sequencer(
    await ensureGenesis(spec, store),
    store,
    spec.common.copy(),
    {
      blockTimeMs: 1e9,
      flashblockIntervalMs: 1e9,
      gasLimit: 30_000_000n,
      coinbase: new Uint8Array(20),
      ...opts,
    },
    onUpdate,
  );
  sequencers.push(sequencer);
  await sequencer.start();
  return {
    sequencer,
    env,
    store,
    updates,
    published: (count) =>
      publishedCount >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ count, resolve })),
    transfer: (from, nonce) => signedTransfer(accounts[from]!, nonce),
  };
}

function signedTransfer(account: DevAccount, nonce: number): Uint8Array {
  return createFeeMarket1559Tx(
    {
      chainId: CHAIN_ID,
      nonce: BigInt(nonce),
      gasLimit: 21_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
      to: new Uint8Array(20).fill(7),
      value: 1n,
    },
    { common: common! },
  )
    .sign(hexToBytes(account.privateKey))
    .serialize();
}

/** The hashes of block `number`'s transactions, in order, from its published flashblocks. */
function blockOrder(updates: readonly (FlashblockUpdate | SealedUpdate)[], number: number) {
  const out: string[] = [];
  for (const u of updates) {
    const fb = u.kind === "flashblock" ? u : u.next;
    if (fb.base.number === number) for (const t of fb.transactions) out.push(bytesToHex(t.hash));
  }
  return out;
}

after(async () => {
  for (const s of sequencers) await s.stop();
  for (const e of envs) await e.close();
});

test("a transaction sent while a backlog executes is pooled after at most the one executing", async () => {
  const { sequencer, transfer } = await startChain({});
  const BACKLOG = 60;
  const backlog: Uint8Array[] = [];
  for (let n = 0; n < BACKLOG / SENDERS; n++)
    for (let s = 0; s < SENDERS; s++) backlog.push(transfer(s, n));
  // Once the backlog is pooled, the next of its transactions to finish running sends another
  // sender's: how many had run then, and when that one was taken into the pool, is counted.
  const include = sequencer.include.bind(sequencer);
  let pooled = false;
  let ran = 0;
  let atSend: number | undefined;
  let intake!: (ranThen: Promise<number>) => void;
  const atIntake = new Promise<number>((resolve) => {
    intake = resolve;
  });
  sequencer.include = async (b, tx, allowNoBlobs) => {
    const r = await include(b, tx, allowNoBlobs);
    ran++;
    if (pooled && atSend === undefined) {
      atSend = ran;
      intake(sequencer.submit(transfer(SENDERS, 0)).then(() => ran));
    }
    return r;
  };
  await Promise.all(backlog.map((raw) => sequencer.submit(raw)));
  pooled = true;
  // The backlog runs on its own (no flashblock or seal is due): the intake comes from inside it.
  const ranAtIntake = await within(atIntake, "the transaction sent during the backlog");
  assert.ok(atSend! < BACKLOG, "sent while the backlog ran");
  // Taken in after the transaction that was running when it came, before the rest of the backlog.
  assert.ok(ranAtIntake - atSend! <= 1, `pooled after ${ranAtIntake - atSend!} more had run`);
  await sequencer.mine();
  assert.equal(ran, BACKLOG + 1);
});

test("a block holds the pool's transactions in arrival order, each sender's by nonce, whatever cuts the execution", async () => {
  // A flashblock every 2 ms: ticks cut the execution of the backlog again and again.
  const { sequencer, transfer, updates, published } = await startChain({
    flashblockIntervalMs: 2,
  });
  const sent: Uint8Array[] = [];
  // Sender 0's nonce 1 comes before its nonce 0: it runs right after it.
  sent.push(transfer(0, 1));
  for (let n = 0; n < 15; n++)
    for (let s = 0; s < SENDERS; s++) if (!(s === 0 && n === 1)) sent.push(transfer(s, n));
  await Promise.all(sent.map((raw) => sequencer.submit(raw)));
  // Run and published flashblock by flashblock, then sealed.
  await within(published(sent.length), "the backlog published");
  const number = await sequencer.mine();
  const hashes = sent.map((raw) => bytesToHex(keccak256(raw)));
  const expected = [hashes[1]!, hashes[0]!, ...hashes.slice(2)];
  assert.deepEqual(blockOrder(updates, number), expected);
  assert.ok(
    updates.filter((u) => u.kind === "flashblock" && u.base.number === number).length > 2,
    "ticks came while the backlog ran",
  );
});

test("with automine a transaction's block costs one durable write: the next block's flashblock 0 is recorded in the seal's", async () => {
  const { sequencer, transfer, updates, env, store } = await startChain({ automine: true });
  let writes = 0;
  let waitedForFlush = 0;
  const writeAtomically = env.writeAtomically.bind(env);
  env.writeAtomically = <T>(fn: () => T): T => {
    writes++;
    waitedForFlush++;
    return writeAtomically(fn);
  };
  const writeAtomicallySoon = env.writeAtomicallySoon.bind(env);
  env.writeAtomicallySoon = <T>(fn: () => T): Promise<T> => {
    writes++;
    return writeAtomicallySoon(fn);
  };
  const head = store.headNumber()!;
  for (let n = 0; n < 3; n++) await sequencer.submit(transfer(0, n));
  assert.equal(store.headNumber(), head + 3, "a block per transaction");
  // One write each (its flush to disk was the largest part of a send-to-receipt round on a dev
  // chain), and none waits for its flush: that goes on after the answer.
  assert.equal(writes, 3);
  assert.equal(waitedForFlush, 0);
  // Recorded as published: a restart opens the same block (its time, its payload id).
  const last = updates.at(-1)!;
  assert.ok(last.kind === "sealed" && last.next.base.number === head + 4);
  const records = store.recordedFlashblocks(head + 4);
  assert.deepEqual(
    records.map((r) => [r.index, r.timestamp, r.transactions.length]),
    [[0, last.next.base.timestamp, 0]],
  );
});

test("on an OP-stack chain the seal records the next block's opening deposits as its flashblock 0 publishes them, a user deposit once", async () => {
  const chain = await startInProcessChain();
  const seq = chain.sequencer;
  const store = chain.archive.store;
  /** Block `number`'s flashblock 0 as recorded, and as the last seal published it. */
  const opening = (number: number) => {
    const last = chain.updates.at(-1)!;
    assert.ok(last.kind === "sealed" && last.next.base.number === number);
    const records = store.recordedFlashblocks(number);
    assert.deepEqual(
      records.map((r) => [r.index, r.timestamp]),
      [[0, last.next.base.timestamp]],
    );
    const published = last.next.transactions.map((t) => bytesToHex(t.raw));
    assert.deepEqual(records[0]!.transactions.map(bytesToHex), published);
    return published;
  };
  try {
    const deposit = encodeDeposit({
      sourceHash: new Uint8Array(32).fill(9),
      from: new Uint8Array(20).fill(0x11),
      to: new Uint8Array(20).fill(0x22),
      mint: 5n,
      value: 0n,
      gasLimit: 100_000n,
      isSystemTx: false,
      data: new Uint8Array(0),
    });
    await seq.submit(deposit);
    const first = await seq.mine();
    // The L1-info deposit, then the user deposit.
    const withDeposit = opening(first + 1);
    assert.equal(withDeposit.length, 2);
    assert.equal(withDeposit[1], bytesToHex(deposit));
    const second = await seq.mine();
    // Taken into that block: the next one opens with the L1-info deposit alone.
    assert.equal(opening(second + 1).length, 1);
  } finally {
    await chain.close();
  }
});
