// A new writer of the flashblock stream continues it where the old one left it: after the update
// that left pending where the stream's last one did, numbered on from the stream's position (a
// replica applies a flashblock of index > 0 only at the last position + 1); else from its next
// seal or flashblock 0, never going back to an older block.
import assert from "node:assert/strict";
import { test } from "node:test";
import { flashblock } from "../../test/utils/flashblockDiffs.ts";
import type { ChainUpdate, FlashblockUpdate } from "../pending/types.ts";
import { updatePosition } from "../pending/types.ts";
import { markOf, resume, type StreamTail } from "./handover.ts";

/** Flashblock `index` of `block`, at own position `position`; `root` tells payloads apart. */
function fb(block: number, index: number, position: number, root = 1): FlashblockUpdate {
  return {
    ...flashblock(block, index),
    transactionsRoot: new Uint8Array(32).fill(root),
    position,
  };
}

function sealed(number: number, next: FlashblockUpdate): ChainUpdate {
  return { kind: "sealed", number, hash: new Uint8Array(32).fill(number), next };
}

const tailAt = (u: ChainUpdate, position: number): StreamTail => ({ position, mark: markOf(u) });
const positions = (us: readonly ChainUpdate[]) => us.map(updatePosition);
const indexes = (us: readonly ChainUpdate[]) =>
  us.map((u) => (u.kind === "sealed" ? `s${u.number}` : `${u.base.number}:${u.index}`));

test("the writer's own updates after the stream's last one, numbered on from its position", () => {
  const mine = [fb(7, 0, 50), fb(7, 1, 51), fb(7, 2, 52), fb(7, 3, 53)];
  // The old writer numbered the same flashblocks otherwise: its (7, 1) is at 900.
  const { handover, publish } = resume(mine, tailAt(fb(7, 1, 0), 900));
  assert.deepEqual(indexes(publish), ["7:2", "7:3"]);
  assert.deepEqual(positions(publish), [901, 902]);
  assert.equal(handover.waiting, false);
  const later = handover.next(sealed(7, fb(8, 0, 54)));
  assert.equal(later === undefined ? undefined : updatePosition(later), 903);
});

test("a writer behind the stream publishes nothing until it reaches the stream's last update", () => {
  const { handover, publish } = resume([fb(7, 0, 10), fb(7, 1, 11)], tailAt(fb(7, 3, 0), 400));
  assert.deepEqual(publish, []);
  assert.equal(handover.waiting, true);
  assert.equal(handover.next(fb(7, 2, 12)), undefined, "(7, 2): the stream has it already");
  assert.equal(handover.waiting, true);
  assert.equal(handover.next(fb(7, 3, 13)), undefined, "(7, 3): the stream's last one");
  const four = handover.next(fb(7, 4, 14));
  assert.equal(four === undefined ? undefined : updatePosition(four), 401);
});

test("no matching update: from its next seal or flashblock 0 of a later block", () => {
  // Its own (7, 2) carries other transactions than the stream's (7, 2).
  const mine = [sealed(6, fb(7, 0, 20, 9)), fb(7, 1, 21, 9), fb(7, 2, 22, 9)];
  const { handover, publish } = resume(mine, tailAt(fb(7, 2, 0, 1), 300));
  // Its seal of 6 would take the replica's pending back to flashblock 0 of block 7.
  assert.deepEqual(publish, []);
  assert.equal(handover.waiting, true);
  const seal = handover.next(sealed(7, fb(8, 0, 23)));
  assert.deepEqual(seal === undefined ? [] : positions([seal]), [301]);
  const one = handover.next(fb(8, 1, 24));
  assert.deepEqual(one === undefined ? [] : positions([one]), [302]);
});

test("the stream's last update a flashblock 0 of another payload: its own flashblock 0 replaces it", () => {
  const { publish } = resume([fb(7, 0, 20, 9), fb(7, 1, 21, 9)], tailAt(fb(7, 0, 0, 1), 300));
  assert.deepEqual(indexes(publish), ["7:0", "7:1"]);
  assert.deepEqual(positions(publish), [301, 302]);
});

test("no matching update, and its seals are of older blocks: it waits for a newer one", () => {
  const mine = [sealed(5, fb(6, 0, 20)), fb(6, 1, 21)];
  const { handover, publish } = resume(mine, tailAt(fb(7, 1, 0), 300));
  assert.deepEqual(publish, [], "block 6 is behind the stream's block 7");
  assert.equal(handover.next(fb(7, 0, 22, 5)), undefined, "not the stream's (7, 1)");
  assert.equal(handover.waiting, true, "(7, 0) with other transactions: not a place to continue");
  const seal = handover.next(sealed(7, fb(8, 0, 23)));
  assert.equal(seal === undefined ? undefined : updatePosition(seal), 301);
});

test("an empty stream, or a tail that could not be read: published as it comes", () => {
  const none = resume([fb(3, 0, 5), fb(3, 1, 6)], undefined);
  assert.deepEqual(positions(none.publish), [5, 6]);
  const cut = resume([fb(3, 1, 6), sealed(3, fb(4, 0, 7)), fb(4, 1, 8)], {
    position: 100,
    mark: undefined,
  });
  assert.deepEqual(indexes(cut.publish), ["s3", "4:1"]);
  assert.deepEqual(positions(cut.publish), [101, 102]);
});

test("an empty pending update and a flashblock 0 with the same block are told apart", () => {
  const empty: FlashblockUpdate = { ...fb(9, 0, 40, 0), empty: true };
  const { publish } = resume([empty, fb(9, 0, 41, 0)], tailAt(empty, 700));
  assert.deepEqual(indexes(publish), ["9:0"]);
  assert.deepEqual(positions(publish), [701]);
});

test("its seal of the block the stream's last update built on: only the flashblock 0 it carries", () => {
  // The stream's last update: the old writer's seal of 8 with nothing pre-confirmed on it yet.
  const tail = tailAt(sealed(8, { ...fb(9, 0, 0, 0), empty: true }), 500);
  const { publish } = resume([sealed(8, fb(9, 0, 60, 4)), fb(9, 1, 61, 4)], tail);
  assert.deepEqual(indexes(publish), ["9:0", "9:1"], "the seal of 8 is not sent twice");
  assert.deepEqual(positions(publish), [501, 502]);
});
