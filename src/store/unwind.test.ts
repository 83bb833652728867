import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import type {
  AccountChange,
  AccountRecord,
  BlockWrite,
  ReceiptRecord,
  StorageChange,
} from "../chain/types.ts";
import type { FlashblockRecord } from "./archive.ts";
import { createChainStore } from "./chainStore.ts";
import { SHARD_CAPACITY } from "./historyShard.ts";
import { openKvEnv } from "./lmdb.ts";
import { TABLES, type TableName } from "./tables.ts";

const dir = mkdtempSync(join(tmpdir(), "flashnode-unwind-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const hex = (u: Uint8Array) => Buffer.from(u).toString("hex");
const A = new Uint8Array(20).fill(0xaa);
const B = new Uint8Array(20).fill(0xbb);
const TOPIC = new Uint8Array(32).fill(0x77);
const busy = new Uint8Array(32).fill(1);
const v = (n: number) => (n === 0 ? new Uint8Array(0) : Uint8Array.of(n & 0xff, n >> 8));

/** Every entry of every table, as hex text (content-addressed tables too). */
function dump(env: ReturnType<typeof openKvEnv>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const name of Object.keys(TABLES) as TableName[]) {
    const t = env.table(name);
    const start = new Uint8Array(0);
    const end = new Uint8Array(80).fill(0xff);
    out[name] = [...t.range(start, end)].map((e) => `${hex(e.key)}=${hex(e.value)}`);
  }
  return out;
}

/**
 * A chain where slot `busy` of A changes in every block (its history crosses a full shard and
 * the row's pre-values wrap), other slots appear and are cleared, accounts are created, changed
 * and deleted, and blocks carry transactions and logs.
 */
function block(
  n: number,
  current: { a?: AccountRecord | undefined; b?: AccountRecord | undefined },
): BlockWrite {
  const hash = new Uint8Array(32).fill(0);
  hash[0] = n >> 8;
  hash[1] = n & 0xff;
  hash[31] = 0x42;
  const storage: StorageChange[] = [
    { address: A, slot: busy, before: v(Math.max(0, n - 1)), after: v(n) },
  ];
  if (n % 7 === 3)
    storage.push({
      address: A,
      slot: Uint8Array.from({ length: 32 }, () => n),
      before: v(0),
      after: v(1),
    });
  if (n % 7 === 5)
    storage.push({
      address: A,
      slot: Uint8Array.from({ length: 32 }, () => n - 2),
      before: v(1),
      after: v(0),
    });
  const accounts: AccountChange[] = [];
  const nextA: AccountRecord = { nonce: BigInt(n), balance: BigInt(n * 10), codeHash: undefined };
  accounts.push({ address: A, before: current.a, after: nextA });
  current.a = nextA;
  if (n % 5 === 0) {
    const nextB =
      current.b === undefined ? { nonce: 1n, balance: 5n, codeHash: undefined } : undefined;
    accounts.push({ address: B, before: current.b, after: nextB });
    current.b = nextB;
  }
  const txHash = new Uint8Array(32).fill(0x10);
  txHash[0] = n >> 8;
  txHash[1] = n & 0xff;
  const receipts: ReceiptRecord[] = [
    {
      type: 2,
      status: 1,
      root: undefined,
      cumulativeGasUsed: 21000n,
      gasUsed: 21000n,
      effectiveGasPrice: 1n,
      from: A,
      to: B,
      contractAddress: undefined,
      transactionHash: txHash,
      logs: n % 2 === 0 ? [{ address: A, topics: [TOPIC, hash], data: new Uint8Array(0) }] : [],
      logsBloom: new Uint8Array(256),
      blobGasUsed: undefined,
      blobGasPrice: undefined,
    } as ReceiptRecord,
  ];
  return {
    number: n,
    hash,
    headerRlp: Uint8Array.of(n & 0xff),
    bodyRlp: Uint8Array.of(0xc0),
    timestamp: BigInt(n),
    transactionHashes: [txHash],
    receipts,
    accountChanges: accounts,
    storageChanges: storage,
    code: new Map(),
    trieNodes: new Map(),
    ...(n % 4 === 0 ? { devWrites: [[1, Uint8Array.of(n & 0xff)] as const] } : {}),
  };
}

test("revertTo leaves every table as it was at the target block, and later blocks write as before", async () => {
  const env = openKvEnv(dir, { noSync: true });
  const store = createChainStore(env);
  const current: { a?: AccountRecord | undefined; b?: AccountRecord | undefined } = {};
  // Just below a full shard of the busy slot: the later blocks fill it and start another, so the
  // unwind moves the full shard back into the slot's row and refills its pre-values.
  const target = SHARD_CAPACITY - 5;
  for (let n = 0; n <= target; n++) store.writeBlock(block(n, current));
  const record: FlashblockRecord = { index: 0, timestamp: 9n, transactions: [], ops: [] };
  store.recordFlashblock(target + 1, 0, 9n, []);
  const atTarget = dump(env);
  // What the comparison covers: a full history shard, slot rows, history, logs, lookups.
  for (const name of [
    "slots",
    "accountHistory",
    "logTopics",
    "txLookup",
    "preconfirmations",
    "devWrites",
  ])
    assert.ok((atTarget[name]?.length ?? 0) > 0, `${name} has entries`);
  assert.equal(atTarget.storageHistoryIndex?.length, 0);
  const saved = { ...current };
  for (let n = target + 1; n <= target + 20; n++) store.writeBlock(block(n, current));
  assert.equal(dump(env).storageHistoryIndex?.length, 1);
  store.recordFlashblock(target + 21, 0, 5n, [Uint8Array.of(1)]);
  const removed = store.revertTo(target, [record]);
  assert.deepEqual(
    removed.map((r) => r.blockNumber),
    Array.from({ length: 20 }, (_, i) => target + 1 + i),
  );
  assert.deepEqual(dump(env), atTarget);
  assert.equal(store.headNumber(), target);
  // The same blocks written again give the same archive as the first time.
  for (let n = target + 1; n <= target + 20; n++) store.writeBlock(block(n, saved));
  const again = dump(env);
  for (let n = target + 1; n <= target + 20; n++) {
    assert.equal(hex(store.storage(A, busy, n - 1)), hex(v(n - 1)), `busy slot at ${n - 1}`);
    assert.equal(store.account(A, n)?.nonce, BigInt(n));
  }
  assert.equal(again.canonical?.length, target + 21);
  await env.close();
});

test("revertTo is one write: a failure inside it leaves the archive untouched", async () => {
  const sub = mkdtempSync(join(dir, "atomic-"));
  const env = openKvEnv(sub, { noSync: true });
  const store = createChainStore(env);
  const current: { a?: AccountRecord | undefined; b?: AccountRecord | undefined } = {};
  for (let n = 0; n <= 12; n++) store.writeBlock(block(n, current));
  const before = dump(env);
  // The 4th removal in the unwind throws, as a crash mid-way would stop it.
  const receipts = env.table("receipts");
  const original = receipts.remove;
  let removals = 0;
  receipts.remove = (key) => {
    if (++removals === 4) throw new Error("crash");
    original(key);
  };
  assert.throws(() => store.revertTo(3, []), /crash/);
  receipts.remove = original;
  assert.deepEqual(dump(env), before);
  assert.equal(store.headNumber(), 12);
  await env.close();
});

// A forked chain records an account's first write with the upstream's value as its before (issue
// 30: a follower unwound to its base block then read the L1-info depositor's nonce as 0 from its
// own trie, which never held it, and refused the next block: receipts root mismatch).
test("on a forked chain, unwinding an account's first write forgets the account: reads go back to the upstream", async () => {
  const sub = mkdtempSync(join(dir, "forked-"));
  const env = openKvEnv(sub, { noSync: true });
  const store = createChainStore(env);
  const F = 10;
  const upstream: AccountRecord = { nonce: 3n, balance: 7n, codeHash: undefined };
  const written = (n: number): AccountRecord => ({
    nonce: BigInt(n),
    balance: 1n,
    codeHash: undefined,
  });
  const at = (n: number, accountChanges: AccountChange[]): BlockWrite => ({
    ...block(n, {}),
    accountChanges,
    storageChanges: [],
  });
  store.setForkBase({
    chainId: 1n,
    number: F,
    hash: new Uint8Array(32),
    stateRoot: new Uint8Array(32),
  });
  // F's own writes (an account funded at the fork), then A's first write at F+1 and another.
  store.writeBlock(at(F, [{ address: B, before: undefined, after: written(0) }]));
  store.writeBlock(at(F + 1, [{ address: A, before: upstream, after: written(4) }]));
  store.writeBlock(at(F + 2, [{ address: A, before: written(4), after: written(5) }]));

  store.revertTo(F + 1, []);
  assert.equal(store.currentAccount(A)?.nonce, 4n, "a later write unwound: the first one's value");
  assert.ok(store.accountKnown(A));
  store.revertTo(F, []);
  assert.equal(store.currentAccount(A), undefined, "the first write unwound: no row");
  assert.equal(store.accountKnown(A), false, "never written: read from the upstream");
  assert.equal(store.currentAccount(B)?.nonce, 0n, "F's own write stays");
  await env.close();
});
