// The layered pending block against the one it replaced (every map copied per flashblock, kept
// in test/utils/copyingPending.ts): random blocks of random diffs over small key sets, so that
// flashblocks overwrite, remove and wipe each other's keys and long blocks merge layers; after
// every flashblock, every key reads the same through both, and so do the transactions.
import assert from "node:assert/strict";
import { test } from "node:test";
import { deserialize, serialize } from "node:v8";
import {
  applyFlashblockByCopy,
  type CopiedPendingBlock,
  CopyingOverlay,
} from "../../test/utils/copyingPending.ts";
import {
  bytesOf,
  flashblock,
  keyUniverse,
  NO_DIFF,
  random,
  randomDiff,
  sentTransaction,
} from "../../test/utils/flashblockDiffs.ts";
import type { AccountRecord } from "../chain/types.ts";
import { bytesToUnprefixedHex } from "../util/hex.ts";
import { MAX_LAYERS } from "./layerStack.ts";
import {
  applyFlashblock,
  type PendingBlock,
  sharedSnapshot,
  shareSnapshot,
} from "./pendingBlock.ts";
import { overlayPending, type StateView } from "./pendingState.ts";
import type { FlashblockUpdate } from "./types.ts";
import { withLaidOutDiffs } from "./updateLayers.ts";

const PARENT_VALUE = Uint8Array.of(0xee);
const PARENT_ACCOUNT: AccountRecord = { nonce: 77n, balance: 77n, codeHash: undefined };
const PARENT_CODE = Uint8Array.of(0xfe);
const parent: StateView = {
  account: () => PARENT_ACCOUNT,
  storage: () => PARENT_VALUE,
  code: () => PARENT_CODE,
};

const SEEDS = [1, 2, 3, 42, 0xdecaf, 20_261_127];

for (const seed of SEEDS) {
  test(`random blocks (seed ${seed}): the layered view reads as the copying one`, () => {
    const next = random(seed);
    const keys = keyUniverse(next);
    const strangers = Array.from({ length: 3 }, () => bytesOf(20, next));
    let layered: PendingBlock | undefined;
    let copied: CopiedPendingBlock | undefined;
    let txId = seed * 10_000;
    for (let block = 1; block <= 6; block++) {
      // Short blocks, Base's (11 flashblocks) and long ones that merge layers.
      const flashblocks = [3, 11, MAX_LAYERS * 3 + 5][block % 3]!;
      for (let index = 0; index < flashblocks; index++) {
        const diff = next() < 0.1 ? NO_DIFF : randomDiff(next, keys);
        const sent = Array.from({ length: Math.floor(next() * 4) }, () =>
          sentTransaction(txId++, Math.floor(next() * 3)),
        );
        let u: FlashblockUpdate = flashblock(block, index, diff, sent);
        // Some arrive as a reader process receives them: the layer's bytes, not the diff.
        if (next() < 0.3) u = deserialize(serialize(withLaidOutDiffs(u))) as FlashblockUpdate;
        const before = layered;
        layered = applyFlashblock(layered, u);
        copied = applyFlashblockByCopy(copied, { ...u, diff });
        assert.ok(layered.state.layers.length <= MAX_LAYERS);
        const at = `seed ${seed}, block ${block}, flashblock ${index}`;
        compare(layered, copied, keys, strangers, at);
        // The call worker's view of the same snapshot reads the same.
        const worker = sharedSnapshot(structuredClone(shareSnapshot(layered)));
        compareState(overlayPending(worker, parent), copied, keys, strangers, `${at} (worker)`);
        // The snapshot before it did not change.
        if (before !== undefined && before.base.number === block)
          assert.equal(before.transactions.length, before.transactionCount, at);
      }
    }
  });
}

function compare(
  layered: PendingBlock,
  copied: CopiedPendingBlock,
  keys: ReturnType<typeof keyUniverse>,
  strangers: readonly Uint8Array[],
  at: string,
): void {
  compareState(overlayPending(layered, parent), copied, keys, strangers, at);
  assert.deepEqual(layered.transactions, copied.transactions, `${at}: transactions`);
  assert.deepEqual(layered.receipts, copied.receipts, `${at}: receipts`);
  for (const [hex, i] of copied.txIndex)
    assert.equal(layered.transactionIndex(Buffer.from(hex, "hex")), i, `${at}: index of ${hex}`);
  let logs = 0;
  for (const r of copied.receipts) logs += r.logs.length;
  assert.equal(layered.logCount, logs, `${at}: logs`);
  // Every write, as the stack lists it (eth_simulateV1 marks them written), is the copy's.
  const accounts = new Map<string, AccountRecord | undefined>();
  const wiped = new Set<string>();
  const slots = new Map<string, Uint8Array>();
  layered.state.forEachWrite({
    account: (a, account) => accounts.set(bytesToUnprefixedHex(a), account),
    wiped: (a) => wiped.add(bytesToUnprefixedHex(a)),
    slot: (a, s, v) => slots.set(bytesToUnprefixedHex(a) + bytesToUnprefixedHex(s), v),
  });
  assert.deepEqual(accounts, new Map(copied.accounts), `${at}: accounts written`);
  assert.deepEqual(wiped, new Set(copied.wiped), `${at}: wipes`);
  assert.deepEqual(slots, new Map(copied.storage), `${at}: slots written`);
}

function compareState(
  view: StateView,
  copied: CopiedPendingBlock,
  keys: ReturnType<typeof keyUniverse>,
  strangers: readonly Uint8Array[],
  at: string,
): void {
  const reference = new CopyingOverlay(copied, parent);
  for (const a of [...keys.addresses, ...strangers]) {
    assert.deepEqual(view.account(a), reference.account(a), `${at}: account ${hex(a)}`);
    for (const s of keys.slots)
      assert.deepEqual(
        view.storage(a, s),
        reference.storage(a, s),
        `${at}: slot ${hex(a)}/${hex(s)}`,
      );
  }
  for (const [hash] of keys.codes)
    assert.deepEqual(view.code(hash), reference.code(hash), `${at}: code ${hex(hash)}`);
}

function hex(b: Uint8Array): string {
  return bytesToUnprefixedHex(b);
}
