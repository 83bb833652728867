import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import type { BlockWrite, ReceiptRecord, StorageChange } from "../chain/types.ts";
import { createChainStore } from "./chainStore.ts";
import { storageChangeKey } from "./keys.ts";
import { openKvEnv } from "./lmdb.ts";
import { RECENT } from "./slotRow.ts";

const dir = mkdtempSync(join(tmpdir(), "flashnode-store-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function block(number: number, storageChanges: StorageChange[]): BlockWrite {
  const hash = new Uint8Array(32).fill(number + 1);
  return {
    number,
    hash,
    headerRlp: new Uint8Array([number]),
    bodyRlp: new Uint8Array([0xc0]),
    timestamp: BigInt(number),
    transactionHashes: [],
    receipts: [],
    accountChanges: [],
    storageChanges,
    code: new Map(),
    trieNodes: new Map(),
  };
}

test("historical storage: every block's value, whether read from a change set or from the current state", async () => {
  const env = openKvEnv(dir, { noSync: true });
  const store = createChainStore(env);
  const a = new Uint8Array(20).fill(0xaa);
  const s1 = new Uint8Array(32).fill(1);
  const s2 = new Uint8Array(32).fill(2);
  const untouched = new Uint8Array(32).fill(3);
  const v = (n: number) => (n === 0 ? new Uint8Array(0) : new Uint8Array([n]));
  // Stored values come back as Buffers: compare bytes.
  const hex = (u: Uint8Array) => Buffer.from(u).toString("hex");
  // s1: 0 → 5 at block 2, → 9 at block 5, cleared at block 7; s2: 0 → 4 at block 1 only.
  const changes: Record<number, StorageChange[]> = {
    1: [{ address: a, slot: s2, before: v(0), after: v(4) }],
    2: [{ address: a, slot: s1, before: v(0), after: v(5) }],
    5: [{ address: a, slot: s1, before: v(5), after: v(9) }],
    7: [{ address: a, slot: s1, before: v(9), after: v(0) }],
  };
  for (let n = 0; n <= 10; n++) store.writeBlock(block(n, changes[n] ?? []));
  const s1At = [0, 0, 5, 5, 5, 9, 9, 0, 0, 0, 0];
  const s2At = [0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4];
  for (let n = 0; n <= 10; n++) {
    assert.equal(hex(store.storage(a, s1, n)), hex(v(s1At[n]!)), `s1 at block ${n}`);
    assert.equal(hex(store.storage(a, s2, n)), hex(v(s2At[n]!)), `s2 at block ${n}`);
    assert.equal(hex(store.storage(a, untouched, n)), "", `untouched slot at block ${n}`);
    // The head passed in by a caller that already read it gives the same answers.
    assert.equal(hex(store.storage(a, s1, n, 10)), hex(v(s1At[n]!)));
  }
  // A block's changes read back, each with its value before and after (what replication sends).
  const at5 = store.blockChanges(5).storage.map((c) => [hex(c.slot), hex(c.before), hex(c.after)]);
  assert.deepEqual(at5, [[hex(s1), "05", "09"]]);
  const at7 = store.blockChanges(7).storage.map((c) => [hex(c.before), hex(c.after)]);
  assert.deepEqual(at7, [["09", ""]]);
  assert.deepEqual(store.blockChanges(6), { accounts: [], storage: [] });
  await env.close();
});

test("values read stay what they were after later reads (LMDB reuses its read buffer)", async () => {
  const sub = mkdtempSync(join(dir, "copies-"));
  const env = openKvEnv(sub, { noSync: true });
  const store = createChainStore(env);
  const a = new Uint8Array(20).fill(0xcc);
  const slot = (n: number) => new Uint8Array(32).fill(n);
  const v = (n: number) => Uint8Array.of(n);
  const hex = (u: Uint8Array) => Buffer.from(u).toString("hex");
  store.writeBlock(block(0, []));
  store.writeBlock(
    block(
      1,
      [1, 2, 3].map((n) => ({ address: a, slot: slot(n), before: new Uint8Array(0), after: v(n) })),
    ),
  );
  // Current values and a block's change set, held while other slots are read.
  const held = [1, 2, 3].map((n) => store.storage(a, slot(n), 1));
  const changes = store.blockChanges(1).storage;
  for (const n of [3, 2, 1]) store.storage(a, slot(n), 1);
  assert.deepEqual(held.map(hex), ["01", "02", "03"]);
  assert.deepEqual(
    changes.map((c) => [hex(c.slot).slice(0, 2), hex(c.before), hex(c.after)]),
    [
      ["01", "", "01"],
      ["02", "", "02"],
      ["03", "", "03"],
    ],
  );
  await env.close();
});

test("historical storage across full history shards: a slot changed in 700 blocks reads right at each", async () => {
  const sub = mkdtempSync(join(dir, "shards-"));
  const env = openKvEnv(sub, { noSync: true });
  const store = createChainStore(env);
  const a = new Uint8Array(20).fill(0xbb);
  const s = new Uint8Array(32).fill(7);
  const v = (n: number) => (n === 0 ? new Uint8Array(0) : Uint8Array.of(n >>> 8, n & 0xff));
  const hex = (u: Uint8Array) => Buffer.from(u).toString("hex");
  // Changed at blocks 5, 7, 9, … (700 changes: three shards of 256 and a newest one), value =
  // the block number; blocks below 5 read zero.
  const last = 5 + 2 * 699;
  const valueAt = (n: number) => (n < 5 ? 0 : n > last ? last : n % 2 === 1 ? n : n - 1);
  for (let n = 0; n <= last + 3; n++) {
    const changed = n >= 5 && n <= last && n % 2 === 1;
    store.writeBlock(
      block(
        n,
        changed ? [{ address: a, slot: s, before: v(valueAt(n - 1)), after: v(valueAt(n)) }] : [],
      ),
    );
  }
  assert.equal(
    env.table("storageHistoryIndex").entryCount(),
    2,
    "two full shards (the newest is in the row)",
  );
  for (let n = 0; n <= last + 3; n++) {
    assert.equal(hex(store.storage(a, s, n)), hex(v(valueAt(n))), `block ${n}`);
  }
  // The row keeps the pre-values of the newest RECENT changes: reads before them need no change
  // set. With those change-set entries gone, reads in that window still answer right.
  const changes = env.table("storageChanges");
  const newest = Array.from({ length: RECENT }, (_, i) => last - 2 * i);
  env.writeAtomically(() => {
    for (const n of newest) changes.remove(storageChangeKey(n, a, s));
  });
  for (let n = last - 2 * RECENT + 1; n <= last + 3; n++) {
    assert.equal(hex(store.storage(a, s, n)), hex(v(valueAt(n))), `block ${n}, from the row`);
  }
  // One change further back is read from the change set, as before.
  changes.remove(storageChangeKey(last - 2 * RECENT, a, s));
  assert.equal(hex(store.storage(a, s, last - 2 * RECENT - 1)), "", "its entry is gone");
  await env.close();
});

test("reads at the head follow every new block, from the writer's and from another store on the same archive", async () => {
  const path = mkdtempSync(join(tmpdir(), "flashnode-headcache-"));
  const env = openKvEnv(path, { noSync: true });
  const store = createChainStore(env);
  const reader = createChainStore(openKvEnv(path, { readOnly: true }));
  const a = new Uint8Array(20).fill(0xbb);
  const s = new Uint8Array(32).fill(4);
  const hex = (u: Uint8Array) => Buffer.from(u).toString("hex");
  let before = new Uint8Array(0);
  for (let n = 0; n <= 20; n++) {
    const after = new Uint8Array([n + 1]);
    store.writeBlock(block(n, [{ address: a, slot: s, before, after }]));
    before = after;
    // The writer sees its own write at once, in the same run.
    assert.equal(hex(store.storage(a, s, n)), hex(after), `writer at head ${n}`);
    assert.equal(hex(store.storage(a, s, n)), hex(after), `writer at head ${n}, again`);
    // Another store's snapshot moves when it refreshes (as readers do when told of a block).
    await new Promise((r) => setImmediate(r));
    reader.env.refresh();
    assert.equal(reader.headNumber(), n);
    assert.equal(hex(reader.storage(a, s, n)), hex(after), `reader at head ${n}`);
    assert.equal(hex(reader.storage(a, s, n)), hex(after), `reader at head ${n}, again`);
    if (n > 0) assert.equal(hex(reader.storage(a, s, n - 1)), hex(new Uint8Array([n])));
  }
  await reader.env.close();
  await env.close();
  rmSync(path, { recursive: true, force: true });
});

test("receipts read back as written, again and again; a block replacing another at its number (a revert) reads its own", async () => {
  const env = openKvEnv(mkdtempSync(join(dir, "receipts-")), { noSync: true });
  const store = createChainStore(env);
  const receipt = (gasUsed: bigint): ReceiptRecord => ({
    type: 2,
    status: 1,
    root: undefined,
    cumulativeGasUsed: gasUsed,
    gasUsed,
    effectiveGasPrice: 7n,
    from: new Uint8Array(20).fill(1),
    to: new Uint8Array(20).fill(2),
    contractAddress: undefined,
    transactionHash: new Uint8Array(32).fill(Number(gasUsed % 256n)),
    logsBloom: new Uint8Array(256),
    logs: [],
    blobGasUsed: undefined,
    blobGasPrice: undefined,
  });
  const withReceipt = (number: number, fill: number, gasUsed: bigint): BlockWrite => ({
    ...block(number, []),
    hash: new Uint8Array(32).fill(fill),
    receipts: [receipt(gasUsed)],
    transactionHashes: [receipt(gasUsed).transactionHash],
  });
  store.writeBlock(withReceipt(0, 0x10, 21_000n));
  const first = withReceipt(1, 0x11, 30_000n);
  store.writeBlock(first);
  for (let i = 0; i < 3; i++)
    assert.equal(store.receipts(1, first.hash)?.receipts[0]?.gasUsed, 30_000n, `read ${i + 1}`);
  store.revertTo(0, []);
  assert.equal(store.receipts(1, new Uint8Array(32).fill(0x12)), undefined, "not written yet");
  const second = withReceipt(1, 0x12, 45_000n);
  store.writeBlock(second);
  assert.equal(store.receipts(1, second.hash)?.receipts[0]?.gasUsed, 45_000n);
  assert.equal(store.receipts(0, new Uint8Array(32).fill(0x10))?.receipts[0]?.gasUsed, 21_000n);
  env.close();
});
