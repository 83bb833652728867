import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { deserialize, serialize } from "node:v8";
import { Worker } from "node:worker_threads";
import {
  flashblock,
  NO_DIFF,
  pendingBase,
  sentTransaction,
} from "../../test/utils/flashblockDiffs.ts";
import type { AccountRecord } from "../chain/types.ts";
import { LayerStack, MAX_LAYERS, nextMerge } from "./layerStack.ts";
import { encodeLayer } from "./layerWriter.ts";
import {
  applyFlashblock,
  type PendingBlock,
  sharedSnapshot,
  shareSnapshot,
} from "./pendingBlock.ts";
import { overlayPending, type StateView } from "./pendingState.ts";
import type { FlashblockUpdate, StateDiff } from "./types.ts";
import { layerOf, withLaidOutDiffs } from "./updateLayers.ts";

const A = new Uint8Array(20).fill(0xaa);
const B = new Uint8Array(20).fill(0xbb);
const C = new Uint8Array(20).fill(0xcc);
const slot = (n: number) => {
  const s = new Uint8Array(32);
  s[31] = n;
  return s;
};
const PARENT_VALUE = Uint8Array.of(0xee);
const PARENT_ACCOUNT: AccountRecord = { nonce: 77n, balance: 77n, codeHash: undefined };
/** The parent's state: every account and slot has a value, so "read through" is visible. */
const parent: StateView = {
  account: () => PARENT_ACCOUNT,
  storage: () => PARENT_VALUE,
  code: () => undefined,
};
const account = (nonce: bigint, balance = 10n ** 18n): AccountRecord => ({
  nonce,
  balance,
  codeHash: undefined,
});
const diff = (d: Partial<StateDiff>): StateDiff => ({ ...NO_DIFF, ...d });

function build(updates: readonly FlashblockUpdate[]): PendingBlock {
  let p: PendingBlock | undefined;
  for (const u of updates) p = applyFlashblock(p, u);
  return p!;
}

describe("the pending block as layers", () => {
  test("reads look through the layers newest first, then the parent", () => {
    const p = build([
      flashblock(
        5,
        0,
        diff({ accounts: [[A, account(1n)]], storage: [[A, slot(1), Uint8Array.of(1)]] }),
      ),
      flashblock(
        5,
        1,
        diff({ accounts: [[B, account(9n)]], storage: [[A, slot(2), Uint8Array.of(2)]] }),
      ),
      flashblock(
        5,
        2,
        diff({ accounts: [[A, account(2n)]], storage: [[A, slot(1), Uint8Array.of(3)]] }),
      ),
    ]);
    assert.equal(p.state.layers.length, 3);
    const s = overlayPending(p, parent);
    assert.equal(s.account(A)?.nonce, 2n, "the newest layer's account");
    assert.equal(s.account(B)?.nonce, 9n, "an older layer's account");
    assert.deepEqual(s.account(C), PARENT_ACCOUNT, "unwritten: the parent's");
    assert.deepEqual(s.storage(A, slot(1)), Uint8Array.of(3));
    assert.deepEqual(s.storage(A, slot(2)), Uint8Array.of(2));
    assert.deepEqual(s.storage(A, slot(3)), PARENT_VALUE);
    assert.deepEqual(s.storage(B, slot(1)), PARENT_VALUE);
  });

  test("a flashblock adds one layer: the older ones are the previous snapshot's, not copies", () => {
    const s1 = build([
      flashblock(5, 0, diff({ accounts: [[A, account(1n)]] }), [sentTransaction(1)]),
      flashblock(5, 1, diff({ storage: [[A, slot(1), Uint8Array.of(1)]] }), [sentTransaction(2)]),
    ]);
    const u = flashblock(5, 2, diff({ accounts: [[B, account(2n)]] }), [sentTransaction(3)]);
    const s2 = applyFlashblock(s1, u);
    assert.equal(s2.state.layers.length, 3);
    assert.equal(s2.state.layers[0], layerOf(u));
    for (const [i, layer] of s1.state.layers.entries()) assert.equal(s2.state.layers[i + 1], layer);
    // The new layer holds the flashblock's own writes only.
    assert.equal(s2.state.layers[0]!.addressCount, 1);
    assert.equal(s2.state.layers[0]!.slotCount, 0);
  });

  test("a removed account reads as none, not as the parent's", () => {
    const p = build([
      flashblock(5, 0, diff({ accounts: [[A, account(1n)]] })),
      flashblock(5, 1, diff({ accounts: [[A, undefined]] })),
    ]);
    assert.equal(overlayPending(p, parent).account(A), undefined);
  });

  test("a wipe hides the older layers' slots and the parent's; slots written after it show", () => {
    const p = build([
      flashblock(
        5,
        0,
        diff({
          storage: [
            [A, slot(1), Uint8Array.of(1)],
            [B, slot(1), Uint8Array.of(1)],
          ],
        }),
      ),
      // Wiped, then written again in the same flashblock (the diff's wipes come first).
      flashblock(5, 1, diff({ wiped: [A], storage: [[A, slot(2), Uint8Array.of(2)]] })),
      flashblock(5, 2, diff({ storage: [[A, slot(3), Uint8Array.of(3)]] })),
    ]);
    const s = overlayPending(p, parent);
    assert.deepEqual(s.storage(A, slot(1)), new Uint8Array(0), "written before the wipe");
    assert.deepEqual(s.storage(A, slot(2)), Uint8Array.of(2), "written with the wipe");
    assert.deepEqual(s.storage(A, slot(3)), Uint8Array.of(3), "written after it");
    assert.deepEqual(s.storage(A, slot(4)), new Uint8Array(0), "never written: not the parent's");
    assert.deepEqual(s.storage(B, slot(1)), Uint8Array.of(1), "another account's slot");
  });

  test("a new block's flashblock 0 starts a new stack and new lists", () => {
    const first = build([
      flashblock(5, 0, diff({ accounts: [[A, account(1n)]] }), [sentTransaction(1)]),
      flashblock(5, 1, diff({ storage: [[A, slot(1), Uint8Array.of(1)]] }), [sentTransaction(2)]),
    ]);
    const next = applyFlashblock(first, flashblock(6, 0, diff({ accounts: [[B, account(3n)]] })));
    assert.equal(next.state.layers.length, 1);
    const s = overlayPending(next, parent);
    assert.deepEqual(s.account(A), PARENT_ACCOUNT);
    assert.deepEqual(s.storage(A, slot(1)), PARENT_VALUE);
    assert.equal(next.transactionCount, 0);
    assert.equal(next.transactionIndex(sentTransaction(1).transaction.hash), undefined);
    // The same number again from index 0 (a rebuilt block) starts over too.
    const again = applyFlashblock(first, flashblock(5, 0));
    assert.equal(again.state.layers.length, 0);
    assert.equal(again.transactionCount, 0);
  });

  test("an empty flashblock adds no layer", () => {
    const p = build([
      flashblock(5, 0, diff({ accounts: [[A, account(1n)]] })),
      flashblock(5, 1),
      flashblock(5, 2),
    ]);
    assert.equal(p.state.layers.length, 1);
    assert.equal(p.index, 2);
  });

  test("a snapshot never changes under its reader; one applied onto twice branches", () => {
    const s0 = build([
      flashblock(5, 0, diff({ accounts: [[A, account(1n)]] }), [sentTransaction(1, 2)]),
    ]);
    const s1 = applyFlashblock(
      s0,
      flashblock(5, 1, diff({ accounts: [[A, account(2n)]] }), [sentTransaction(2, 3)]),
    );
    // Another flashblock 1 on the same snapshot (as after a lost one): its own branch.
    const other = applyFlashblock(s0, flashblock(5, 1, NO_DIFF, [sentTransaction(3, 1)]));
    assert.equal(overlayPending(s0, parent).account(A)?.nonce, 1n);
    assert.equal(overlayPending(s1, parent).account(A)?.nonce, 2n);
    assert.equal(s0.transactionCount, 1);
    assert.equal(s0.transactions.length, 1);
    assert.equal(s0.transactionIndex(sentTransaction(2).transaction.hash), undefined);
    assert.equal(s1.transactionIndex(sentTransaction(2).transaction.hash), 1);
    assert.deepEqual(
      s1.receipts.map((r) => r.logs.length),
      [2, 3],
    );
    assert.equal(s1.logCount, 5);
    assert.deepEqual(
      other.transactions.map((t) => t.hash),
      [sentTransaction(1).transaction.hash, sentTransaction(3).transaction.hash],
    );
    assert.equal(other.transactionIndex(sentTransaction(2).transaction.hash), undefined);
    assert.equal(s1.transactions.length, 2, "the first branch kept its own");
  });

  test("many flashblocks: the depth stays bounded and every read is the newest write", () => {
    let p: PendingBlock | undefined;
    const n = MAX_LAYERS * 6 + 3;
    for (let i = 0; i < n; i++) {
      const own = new Uint8Array(20).fill(i + 1);
      p = applyFlashblock(
        p,
        flashblock(
          9,
          i,
          diff({
            accounts: [
              [A, account(BigInt(i))],
              [own, account(1000n + BigInt(i))],
            ],
            storage: [
              [A, slot(1), Uint8Array.of(i + 1)],
              [own, slot(i % 7), Uint8Array.of(i)],
            ],
            wiped: i === 50 ? [A] : [],
          }),
          [sentTransaction(i)],
        ),
      );
      assert.ok(p.state.layers.length <= MAX_LAYERS, `depth ${p.state.layers.length} at ${i}`);
    }
    const s = overlayPending(p!, parent);
    assert.equal(s.account(A)?.nonce, BigInt(n - 1));
    assert.deepEqual(s.storage(A, slot(1)), Uint8Array.of(n));
    // A's slot 2 was never written; A was wiped at flashblock 50: zero, not the parent's.
    assert.deepEqual(s.storage(A, slot(2)), new Uint8Array(0));
    for (let i = 0; i < n; i++) {
      const own = new Uint8Array(20).fill(i + 1);
      assert.equal(s.account(own)?.nonce, 1000n + BigInt(i));
      assert.deepEqual(s.storage(own, slot(i % 7)), i === 0 ? new Uint8Array(0) : Uint8Array.of(i));
    }
    assert.equal(p!.transactionCount, n);
    assert.equal(p!.transactionIndex(sentTransaction(n - 1).transaction.hash), n - 1);
  });

  test("merging: a Base block never merges; a long one copies each entry O(log n) times", () => {
    /** Bytes copied by merges per byte laid out, and the deepest the stack got. */
    const run = (sizes: readonly number[]) => {
      let stack: number[] = [];
      let copied = 0;
      let deepest = 0;
      for (const size of sizes) {
        stack = [size, ...stack];
        for (
          let i = nextMerge(stack, MAX_LAYERS);
          i !== undefined;
          i = nextMerge(stack, MAX_LAYERS)
        ) {
          copied += stack[i]! + stack[i + 1]!;
          stack.splice(i, 2, stack[i]! + stack[i + 1]!);
        }
        deepest = Math.max(deepest, stack.length);
      }
      return { copied: copied / sizes.reduce((a, b) => a + b, 0), deepest };
    };
    assert.deepEqual(run(Array(11).fill(100)), { copied: 0, deepest: 11 });
    for (const [name, sizes, most] of [
      ["300 equal flashblocks", Array(300).fill(100), 8],
      ["3000 equal flashblocks", Array(3000).fill(100), 12],
      // A burst, then a trickle: each small one must not pay for the big ones.
      ["a burst, then 3000 small ones", [...Array(16).fill(100_000), ...Array(3000).fill(10)], 6],
      ["growing flashblocks", Array.from({ length: 1000 }, (_, i) => 10 + i), 12],
    ] as const) {
      const { copied, deepest } = run(sizes);
      assert.ok(deepest <= MAX_LAYERS, `${name}: ${deepest} layers`);
      assert.ok(copied < most, `${name}: each byte copied ${copied.toFixed(1)} times`);
    }
  });

  test("accounts keep every field: large balances, nonces, code hashes", () => {
    const codeHash = new Uint8Array(32).fill(0x5c);
    const code = Uint8Array.of(0x60, 0x00, 0x60, 0x00, 0xf3);
    const records: AccountRecord[] = [
      { nonce: 0n, balance: 0n, codeHash: undefined },
      { nonce: 2n ** 64n - 1n, balance: 2n ** 256n - 1n, codeHash },
      { nonce: 5n, balance: 2n ** 53n, codeHash: undefined },
      { nonce: 2n ** 53n - 1n, balance: 12_345_678_901_234_567_890n, codeHash },
    ];
    for (const r of records) {
      const p = build([flashblock(1, 0, diff({ accounts: [[A, r]], code: [[codeHash, code]] }))]);
      const s = overlayPending(p, parent);
      assert.deepEqual(s.account(A), r);
      assert.deepEqual(s.code(codeHash), code);
    }
  });

  test("a slot key shorter than a word reads as the word", () => {
    const p = build([flashblock(1, 0, diff({ storage: [[A, slot(3), Uint8Array.of(9)]] }))]);
    assert.deepEqual(overlayPending(p, parent).storage(A, Uint8Array.of(3)), Uint8Array.of(9));
  });

  test("a layer is laid out once per update object, however many apply it", () => {
    const u = flashblock(5, 0, diff({ accounts: [[A, account(1n)]] }));
    const a = applyFlashblock(undefined, u);
    const b = applyFlashblock(undefined, u);
    assert.equal(a.state.layers[0], b.state.layers[0]);
    assert.equal(layerOf(u), a.state.layers[0]);
  });

  test("to a reader process: the layer's bytes cross in place of the diff, and read the same", () => {
    const u = flashblock(
      5,
      1,
      diff({
        accounts: [[A, account(3n)]],
        storage: [[B, slot(1), Uint8Array.of(4)]],
        wiped: [C],
      }),
      [sentTransaction(1)],
    );
    const sealed = {
      kind: "sealed" as const,
      number: 4,
      hash: new Uint8Array(32),
      next: flashblock(5, 0, diff({ accounts: [[B, account(8n)]] })),
    };
    const crossed = deserialize(serialize([withLaidOutDiffs(sealed), withLaidOutDiffs(u)]));
    assert.ok("layer" in crossed[0].next.diff && "layer" in crossed[1].diff);
    const here = applyFlashblock(applyFlashblock(undefined, sealed.next), u);
    const there = applyFlashblock(applyFlashblock(undefined, crossed[0].next), crossed[1]);
    for (const block of [here, there]) {
      const s = overlayPending(block, parent);
      assert.equal(s.account(A)?.nonce, 3n);
      assert.equal(s.account(B)?.nonce, 8n);
      assert.deepEqual(s.storage(B, slot(1)), Uint8Array.of(4));
      assert.deepEqual(s.storage(C, slot(1)), new Uint8Array(0));
    }
    assert.ok(there.state.layers[0]!.buffer instanceof SharedArrayBuffer);
    // An empty diff crosses as no bytes, and adds no layer there.
    const empty = deserialize(serialize(withLaidOutDiffs(flashblock(5, 2))));
    assert.equal(applyFlashblock(there, empty).state.layers.length, 2);
  });

  test("to the call worker: the layers cross by reference, not copied", async () => {
    const p = build([
      flashblock(5, 0, diff({ accounts: [[A, account(1n)]] })),
      flashblock(5, 1, diff({ storage: [[A, slot(1), Uint8Array.of(7)]] })),
    ]);
    const shared = shareSnapshot(p);
    assert.ok(shared.layers.every((b) => b instanceof SharedArrayBuffer));
    // A worker reads the snapshot, then waits; the test then changes the shared memory (only a
    // test would) and the worker sees the change: the two threads read the same bytes.
    const worker = new Worker(
      `
      const { parentPort } = require("node:worker_threads");
      parentPort.once("message", (layers) => {
        const bytes = layers.map((b) => new Uint8Array(b));
        const sum = () => bytes.reduce((n, b) => n + b.reduce((m, x) => m + x, 0), 0);
        parentPort.postMessage({ shared: layers.every((b) => b instanceof SharedArrayBuffer), sum: sum() });
        parentPort.once("message", () => parentPort.postMessage({ sum: sum() }));
      });`,
      { eval: true },
    );
    try {
      const answer = (): Promise<{ shared?: boolean; sum: number }> =>
        new Promise((resolve) => worker.once("message", resolve));
      const first = answer();
      worker.postMessage(shared.layers);
      const seen = await first;
      assert.equal(seen.shared, true);
      const layer = new Uint8Array(shared.layers[0]!);
      const at = layer.length - 1;
      const before = layer[at]!;
      layer[at] = (before + 1) & 0xff;
      const second = answer();
      worker.postMessage(null);
      const after = await second;
      layer[at] = before;
      assert.equal(after.sum - seen.sum, before === 0xff ? -0xff : 1);
    } finally {
      await worker.terminate();
    }
    const there = sharedSnapshot(structuredClone(shared));
    assert.deepEqual(overlayPending(there, parent).storage(A, slot(1)), Uint8Array.of(7));
    assert.equal(there.base.number, pendingBase(5).number);
  });

  test("a stack from its buffers reads as the stack", () => {
    const layer = encodeLayer(diff({ accounts: [[A, account(4n)]] }))!;
    const stack = LayerStack.fromBuffers(LayerStack.EMPTY.with(layer).buffers());
    const a = stack.account(A);
    assert.ok(typeof a === "object" && a !== null);
    assert.equal(a.nonce, 4n);
  });
});
