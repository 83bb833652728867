import assert from "node:assert/strict";
import { test } from "node:test";
import type { ChainUpdate, FlashblockUpdate } from "../pending/types.ts";
import { UpdateStream } from "./updateStream.ts";

const fb = (block: number, index: number) =>
  ({ kind: "flashblock", index, base: { number: block } }) as unknown as FlashblockUpdate;
const sealed = (number: number) =>
  ({ kind: "sealed", number, next: fb(number + 1, 0) }) as unknown as ChainUpdate;

const label = (u: ChainUpdate) =>
  u.kind === "sealed" ? `seal ${u.number}` : `${u.base.number}.${u.index}`;

test("a late subscriber gets the block being built, then every update", () => {
  const stream = new UpdateStream();
  stream.publish(fb(5, 0));
  stream.publish(fb(5, 1));
  stream.publish(sealed(5));
  stream.publish(fb(6, 1));
  const seen: string[] = [];
  stream.subscribe((u, catchUp) => seen.push(`${label(u)}${catchUp ? " (catch-up)" : ""}`));
  stream.publish(fb(6, 2));
  assert.deepEqual(seen, ["seal 5 (catch-up)", "6.1 (catch-up)", "6.2"]);
});

test("an unsubscribed listener hears nothing more", () => {
  const stream = new UpdateStream();
  const seen: string[] = [];
  const stop = stream.subscribe((u) => seen.push(label(u)));
  stream.publish(fb(1, 0));
  stop();
  stream.publish(fb(1, 1));
  assert.deepEqual(seen, ["1.0"]);
  assert.deepEqual(stream.currentBlock().map(label), ["1.0", "1.1"]);
});
