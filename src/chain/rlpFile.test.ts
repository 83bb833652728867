import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { RLP } from "@ethereumjs/rlp";
import { CHAIN_RLP, tempDatadir } from "../../test/utils/fixtures.ts";
import { ChainFile } from "./rlpFile.ts";

function fileOf(bytes: Uint8Array): string {
  const path = join(tempDatadir("rlpfile"), "chain.rlp");
  writeFileSync(path, bytes);
  return path;
}

test("the fixture chain splits into its 54 blocks, byte for byte", () => {
  const whole = readFileSync(CHAIN_RLP);
  const file = ChainFile.open(CHAIN_RLP);
  const items = [...file.items()];
  const { count, last } = file.count();
  file.close();
  assert.equal(items.length, 54);
  assert.equal(count, 54);
  assert.deepEqual(last, items.at(-1));
  assert.deepEqual(Buffer.concat(items.map((i) => i.bytes)), whole);
  for (const item of items) {
    const block = RLP.decode(item.bytes) as Uint8Array[][];
    assert.ok(Array.isArray(block) && block.length >= 3, "header, transactions, uncles, …");
  }
});

test("short and long lists; an empty file holds no blocks", () => {
  const short = RLP.encode([new Uint8Array([1, 2, 3])]);
  const long = RLP.encode([new Uint8Array(300).fill(7), new Uint8Array(70_000).fill(9)]);
  const file = ChainFile.open(fileOf(Buffer.concat([short, long, short])));
  assert.deepEqual(
    [...file.items()].map((i) => [i.offset, i.bytes.length]),
    [
      [0, short.length],
      [short.length, long.length],
      [short.length + long.length, short.length],
    ],
  );
  file.close();
  const empty = ChainFile.open(fileOf(new Uint8Array()));
  assert.deepEqual(empty.count(), { count: 0, last: undefined });
  empty.close();
});

test("malformed files are refused with the byte offset", () => {
  const block = RLP.encode([new Uint8Array(100)]);
  const cases: Array<[Uint8Array, RegExp]> = [
    [
      Buffer.concat([block, block.subarray(0, 50)]),
      /at byte 104: a block of 104 bytes runs past the end/,
    ],
    [
      Buffer.concat([block, Uint8Array.of(0x85, 1, 2, 3, 4, 5)]),
      /at byte 104: a block must be an RLP list/,
    ],
    [Uint8Array.of(0xf9, 0x00, 0x10), /at byte 0: list length has a leading zero byte/],
    [Uint8Array.of(0xf8, 0x05, 1, 2, 3, 4, 5), /at byte 0: long list header for a short list/],
    [Uint8Array.of(0xfa, 0x01), /at byte 0: truncated list header/],
  ];
  for (const [bytes, message] of cases) {
    const file = ChainFile.open(fileOf(bytes));
    assert.throws(() => [...file.items()], message);
    assert.throws(() => file.count(), message);
    file.close();
  }
  assert.throws(() => ChainFile.open("/nonexistent/chain.rlp"), /cannot read chain file/);
});
