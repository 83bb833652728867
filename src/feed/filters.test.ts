import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeClock } from "../../test/utils/fakeClock.ts";
import { createFakeFeed } from "../../test/utils/fakeFeed.ts";
import { parseFilterCriteria } from "../rpc/filterCriteria.ts";
import { hexToBytes } from "../util/hex.ts";
import { createFilterManager, filterOwner } from "./filters.ts";
import type { LogEvent } from "./types.ts";

const A = `0x${"aa".repeat(20)}`;
const B = `0x${"bb".repeat(20)}`;
const T = `0x${"11".repeat(32)}`;
const tx = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;

function log(address: string, txN: number, block: number, blockHash = "0x00"): LogEvent {
  return {
    address: hexToBytes(address),
    topics: [hexToBytes(T)],
    transactionHash: tx(txN),
    json: JSON.stringify({ address, blockNumber: `0x${block.toString(16)}`, blockHash, tx: txN }),
  };
}

const parsed = (items: string[] | undefined) => (items ?? []).map((j) => JSON.parse(j));

test("a block filter reports each sealed block's hash once, then nothing", () => {
  const feed = createFakeFeed();
  const filters = createFilterManager(feed);
  const id = filters.newBlockFilter();
  feed.emitNewHead({ blockNumber: 1, hash: "0x01", json: "{}" });
  feed.emitNewHead({ blockNumber: 2, hash: "0x02", json: "{}" });
  assert.deepEqual(parsed(filters.changes(id)), ["0x01", "0x02"]);
  assert.deepEqual(filters.changes(id), []);
  assert.equal(filters.logCriteria(id), undefined, "not a log filter");
  assert.equal(filters.uninstall(id), true);
  assert.equal(filters.uninstall(id), false);
  assert.equal(filters.changes(id), undefined);
  filters.close();
  assert.equal(feed.listenerCount(), 0);
});

test("an open log filter reports logs when pre-confirmed and not again when sealed", () => {
  const feed = createFakeFeed();
  const filters = createFilterManager(feed);
  const open = filters.newLogFilter(parseFilterCriteria({ address: A }));
  const pendingTop = filters.newLogFilter(parseFilterCriteria({ toBlock: "pending" }));
  const sealedOnly = filters.newLogFilter(parseFilterCriteria({ toBlock: "latest" }));
  const txs = filters.newPendingTransactionFilter();
  feed.emitPreconfirmed({
    blockNumber: 7,
    transactionHashes: [tx(1), tx(2)],
    logs: [log(A, 1, 7), log(B, 2, 7)],
  });
  assert.deepEqual(
    parsed(filters.changes(open)).map((l) => l.tx),
    [1],
  );
  assert.deepEqual(
    parsed(filters.changes(pendingTop)).map((l) => l.tx),
    [1, 2],
  );
  assert.deepEqual(filters.changes(sealedOnly), []);
  assert.deepEqual(parsed(filters.changes(txs)), [tx(1), tx(2)]);
  // Block 7 seals with those two and a third transaction pre-confirmed before the filters existed.
  feed.emitLogs([log(A, 0, 7, "0x07"), log(A, 1, 7, "0x07"), log(B, 2, 7, "0x07")]);
  assert.deepEqual(
    parsed(filters.changes(open)).map((l) => [l.tx, l.blockHash]),
    [[0, "0x07"]],
  );
  assert.deepEqual(
    parsed(filters.changes(pendingTop)).map((l) => l.tx),
    [0],
  );
  assert.deepEqual(
    parsed(filters.changes(sealedOnly)).map((l) => l.tx),
    [0, 1, 2],
  );
  assert.deepEqual(filters.logCriteria(open)?.addresses?.count, 1);
  filters.close();
});

test("a log filter's range and limits are geth's", () => {
  const filters = createFilterManager(createFakeFeed());
  assert.throws(
    () => filters.newLogFilter(parseFilterCriteria({ fromBlock: "0x5", toBlock: "0x2" })),
    {
      rpcCode: -32602,
      message: "invalid block range params",
    },
  );
  const many = Array.from({ length: 1001 }, (_, i) => `0x${i.toString(16).padStart(40, "0")}`);
  assert.throws(() => filters.newLogFilter(parseFilterCriteria({ address: many })), {
    rpcCode: -32000,
    message: "exceed max addresses or topics per search position",
  });
  // Numeric bounds hold for delivered logs.
  const feed = createFakeFeed();
  const bounded = createFilterManager(feed);
  const id = bounded.newLogFilter(parseFilterCriteria({ fromBlock: "0x3", toBlock: "0x4" }));
  feed.emitLogs([log(A, 1, 3, "0x03")]);
  feed.emitLogs([log(A, 2, 5, "0x05")]);
  assert.deepEqual(
    parsed(bounded.changes(id)).map((l) => l.tx),
    [1],
  );
  filters.close();
  bounded.close();
});

test("a filter not polled within the timeout is dropped; polling keeps it", () => {
  const clock = new FakeClock();
  const filters = createFilterManager(createFakeFeed(), { timeoutMs: 60, clock });
  const kept = filters.newBlockFilter();
  const dropped = filters.newBlockFilter();
  for (let i = 0; i < 6; i++) {
    clock.advance(25);
    assert.deepEqual(filters.changes(kept), []);
  }
  assert.equal(filters.changes(dropped), undefined);
  filters.close();
});

test("a filter id names the reader that holds it", () => {
  const filters = createFilterManager(createFakeFeed(), { slot: 3 });
  const id = filters.newBlockFilter();
  assert.match(id, /^0x13[0-9a-f]{30}$/);
  assert.equal(filterOwner(id), 3);
  assert.equal(filterOwner("0x1"), undefined);
  assert.equal(filterOwner(`0x${"ff".repeat(16)}`), undefined);
  filters.close();
});
