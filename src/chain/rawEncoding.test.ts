import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { RLP } from "@ethereumjs/rlp";
import { encodeReceipt } from "@ethereumjs/vm";
import {
  blockRlp,
  bodyCounts,
  bodyRlpOf,
  bodyTransactions,
  bodyUncles,
  MalformedRlpError,
  receiptRlp,
  splitBlockRlp,
} from "./rawEncoding.ts";
import type { ReceiptRecord } from "./types.ts";

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

function receipt(over: Partial<ReceiptRecord>): ReceiptRecord {
  return {
    type: 0,
    status: 1,
    root: undefined,
    cumulativeGasUsed: 21000n,
    gasUsed: 21000n,
    effectiveGasPrice: 1n,
    from: bytes(20, 1),
    to: bytes(20, 2),
    contractAddress: undefined,
    transactionHash: bytes(32, 3),
    logsBloom: bytes(256, 0),
    logs: [{ address: bytes(20, 4), topics: [bytes(32, 5), bytes(32, 6)], data: bytes(70, 7) }],
    blobGasUsed: undefined,
    blobGasPrice: undefined,
    ...over,
  };
}

describe("raw encodings", () => {
  test("receipts encode as the EVM library encodes the receipts trie's leaves", () => {
    const cases: ReceiptRecord[] = [
      receipt({}),
      receipt({ status: 0, type: 2, logs: [] }),
      receipt({ type: 3, cumulativeGasUsed: 10_000_000n }),
      receipt({ type: 4, status: 1 }),
      receipt({ status: undefined, root: bytes(32, 9) }),
    ];
    for (const r of cases) {
      const vmReceipt = {
        cumulativeBlockGasUsed: r.cumulativeGasUsed,
        bitvector: r.logsBloom,
        logs: r.logs.map(
          (l) => [l.address, [...l.topics], l.data] as [Uint8Array, Uint8Array[], Uint8Array],
        ),
        ...(r.root === undefined ? { status: r.status as 0 | 1 } : { stateRoot: r.root }),
      };
      assert.deepEqual(receiptRlp(r), encodeReceipt(vmReceipt, r.type as 0 | 1 | 2 | 3 | 4));
    }
    assert.equal(receiptRlp(receipt({ type: 2 }))[0], 2);
  });

  test("a body is walked into its transactions and uncles, and joined to its header", () => {
    const legacy = RLP.encode([bytes(1, 1), bytes(2, 2), bytes(3, 3)]);
    const typed = Uint8Array.from([2, ...RLP.encode([bytes(60, 8)])]);
    const uncle = RLP.encode([bytes(32, 1), bytes(8, 2)]);
    const body = RLP.encode([[RLP.decode(legacy), typed], [RLP.decode(uncle)], []] as never);
    assert.deepEqual(bodyCounts(body), { transactions: 2, uncles: 1 });
    assert.deepEqual(bodyTransactions(body), [legacy, typed]);
    assert.deepEqual(bodyUncles(body), [uncle]);
    const header = RLP.encode([bytes(32, 0xaa), bytes(100, 0xbb)]);
    const block = blockRlp(header, body);
    assert.deepEqual(RLP.decode(block), [RLP.decode(header), ...(RLP.decode(body) as unknown[])]);
    // And split back into the same two.
    assert.deepEqual(splitBlockRlp(block), { headerRlp: header, bodyRlp: body });
    assert.throws(() => splitBlockRlp(Uint8Array.of(...block, 0)), MalformedRlpError);
    // A pre-confirmed body: the same transactions, no uncles, empty withdrawals.
    assert.deepEqual(RLP.decode(bodyRlpOf([legacy, typed])), [[RLP.decode(legacy), typed], [], []]);
    assert.deepEqual(bodyRlpOf([]), Uint8Array.of(0xc3, 0xc0, 0xc0, 0xc0));
  });

  test("malformed bodies are refused, not misread", () => {
    for (const bad of [
      new Uint8Array(0),
      Uint8Array.of(0x80),
      Uint8Array.of(0xc1, 0xc0),
      Uint8Array.of(0xc3, 0xc5, 0xc0, 0xc0),
      Uint8Array.of(0xc2, 0x01, 0xc0),
    ]) {
      assert.throws(() => bodyCounts(bad), MalformedRlpError, `${bad}`);
    }
  });
});
