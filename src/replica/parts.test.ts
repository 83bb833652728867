// Messages larger than the server's max_payload travel in parts: cut to fit, joined in order,
// and a set of parts cut short (its publisher stopped between them) is dropped, not joined.
import assert from "node:assert/strict";
import { test } from "node:test";
import { completesMessage, PartJoiner, parsePart, splitPayload } from "./parts.ts";

const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => i % 251);

test("a payload that fits is one part; a larger one is cut to the server's limit less header room", () => {
  assert.equal(splitPayload(bytes(1000), 64 * 1024).length, 1);
  const parts = splitPayload(bytes(200_000), 64 * 1024);
  assert.equal(parts.length, 4);
  for (const p of parts) assert.ok(p.length <= 64 * 1024 - 8 * 1024);
  assert.deepEqual(
    Buffer.concat(parts),
    Buffer.from(bytes(200_000)),
    "the parts, in order, are the payload",
  );
});

test("parts join in order; a whole message passes through", () => {
  const j = new PartJoiner();
  const payload = bytes(200_000);
  const parts = splitPayload(payload, 64 * 1024);
  const out = parts.map((p, i) => j.add(`${i}/${parts.length}`, p));
  assert.deepEqual(out.slice(0, -1), [undefined, undefined, undefined]);
  assert.deepEqual(out.at(-1), payload);
  assert.equal(j.pending, false);
  assert.deepEqual(j.add(undefined, bytes(10)), bytes(10));
});

test("parts cut short are dropped when the message starts again; a stray part is ignored", () => {
  const j = new PartJoiner();
  const payload = bytes(130_000);
  const parts = splitPayload(payload, 64 * 1024);
  assert.equal(parts.length, 3);
  // The first attempt stops after two parts; the publisher sends the message again.
  assert.equal(j.add("0/3", parts[0]!), undefined);
  assert.equal(j.add("1/3", parts[1]!), undefined);
  assert.equal(j.add("0/3", parts[0]!), undefined);
  assert.equal(j.add("1/3", parts[1]!), undefined);
  assert.deepEqual(j.add("2/3", parts[2]!), payload);
  // A reader that starts in the middle of a message skips to the next whole one.
  assert.equal(j.add("2/3", parts[2]!), undefined);
  assert.equal(j.pending, false);
  assert.deepEqual(j.add(undefined, bytes(5)), bytes(5));
});

test("the part header: i/N with i below N, else not a part", () => {
  assert.deepEqual(parsePart("2/5"), { index: 2, count: 5 });
  assert.equal(parsePart("5/5"), undefined);
  assert.equal(parsePart("x"), undefined);
  assert.equal(parsePart(undefined), undefined);
  assert.equal(completesMessage("4/5"), true);
  assert.equal(completesMessage("3/5"), false);
  assert.equal(completesMessage(undefined), true);
});
