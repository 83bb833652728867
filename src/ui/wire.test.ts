// The page's reading of flashblock messages (static/wire.js, plain browser JavaScript), run in
// Node: flashnode's own messages, an OP-stack block whose index 0 holds a deposit, Base's older
// externally tagged receipts, and Base v0.8 messages that carry no receipts at all.
import assert from "node:assert/strict";
import { test } from "node:test";

type Tx = { hash?: string; type?: number; status?: number; gas?: number };
type Flashblock = {
  block?: number;
  index?: number;
  base?: { gasLimit?: number; timestamp?: number };
  gasUsed: number;
  transactions: Tx[];
};
type Wire = {
  readFlashblock(msg: unknown, previousCumulativeGas?: number): Flashblock;
  rawType(raw: string): number | undefined;
  typeLabel(type: number | undefined): string;
};
// A runtime specifier: the module is JavaScript for the browser, without type declarations.
const wire = (await import(new URL("./static/wire.js", import.meta.url).href)) as Wire;

const H1 = `0x${"a1".repeat(32)}`;
const H2 = `0x${"b2".repeat(32)}`;

test("an OP-stack block: the L1-info deposit alone in index 0, then user transactions", () => {
  const zero = wire.readFlashblock({
    payload_id: "0x0102030405060708",
    index: 0,
    base: { block_number: "0x10", gas_limit: "0x3938700", timestamp: "0x6745" },
    diff: { gas_used: "0xb41c", transactions: ["0x7ef8f8a0"] },
    metadata: {
      block_number: 16,
      receipts: { [H1]: { type: "0x7e", status: true, cumulativeGasUsed: "0xb41c", logs: [] } },
    },
  });
  assert.equal(zero.block, 16);
  assert.equal(zero.index, 0);
  assert.deepEqual(zero.base, { gasLimit: 60_000_000, timestamp: 0x6745 });
  assert.deepEqual(zero.transactions, [{ hash: H1, type: 0x7e, status: 1, gas: 46_108 }]);
  assert.equal(wire.typeLabel(zero.transactions[0]!.type), "deposit");

  const one = wire.readFlashblock(
    {
      index: 1,
      diff: { gas_used: "0xfd24", transactions: ["0x02f870", "0xf86c"] },
      metadata: {
        block_number: 16,
        receipts: {
          [H2]: { type: "0x2", status: true, cumulativeGasUsed: "0xe240" },
          [H1.replace("a1", "c3")]: { type: "0x0", status: false, cumulativeGasUsed: "0xfd24" },
        },
      },
    },
    0xb41c,
  );
  assert.deepEqual(
    one.transactions.map((t) => [t.type, t.status, t.gas]),
    [
      [2, 1, 0xe240 - 0xb41c],
      [0, 0, 0xfd24 - 0xe240],
    ],
    "gas per transaction from the cumulative figures, continuing the block's",
  );
});

test("externally tagged receipts (Base before reth 1.10) and messages without receipts (v0.8)", () => {
  const tagged = wire.readFlashblock({
    index: 0,
    diff: { gas_used: "0x5208", transactions: ["0x7ef8"] },
    metadata: {
      block_number: 3,
      receipts: { [H1]: { Deposit: { status: "0x1", cumulativeGasUsed: "0x5208" } } },
    },
  });
  assert.deepEqual(tagged.transactions, [{ hash: H1, type: 0x7e, status: 1, gas: 21_000 }]);

  const bare = wire.readFlashblock({
    index: 2,
    diff: { gas_used: "0x0", transactions: ["0x7ef8", "0x02f8", "0xf86c"] },
    metadata: { block_number: 3 },
  });
  assert.deepEqual(
    bare.transactions.map((t) => [t.hash, t.type]),
    [
      [undefined, 0x7e],
      [undefined, 2],
      [undefined, 0],
    ],
    "types from the raw bytes; the page asks the node for the hashes",
  );
});

test("garbage is read as nothing rather than thrown", () => {
  for (const msg of [null, 42, "x", {}, { diff: { transactions: "no" } }]) {
    const fb = wire.readFlashblock(msg);
    assert.equal(fb.block, undefined);
    assert.deepEqual(fb.transactions, []);
  }
  assert.equal(wire.rawType("0x"), undefined);
});
