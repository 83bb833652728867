import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RpcError } from "../services/errors.ts";
import { hexToBytes } from "../util/hex.ts";
import { logBlockNumber, matchLog, parseLogFilter } from "./logFilter.ts";
import type { LogEvent } from "./types.ts";

const A = `0x${"aa".repeat(20)}`;
const B = `0x${"bb".repeat(20)}`;
const C = `0x${"cc".repeat(20)}`;
const T1 = `0x${"11".repeat(32)}`;
const T2 = `0x${"22".repeat(32)}`;
const T3 = `0x${"33".repeat(32)}`;

function log(address: string, topics: string[], blockNumber = 5): LogEvent {
  return {
    address: hexToBytes(address),
    topics: topics.map(hexToBytes),
    transactionHash: `0x${"aa".repeat(32)}`,
    json: JSON.stringify({ address, topics, blockNumber: `0x${blockNumber.toString(16)}` }),
  };
}

function matches(filter: unknown, l: LogEvent): boolean {
  return matchLog(parseLogFilter(filter), l);
}

function fails(raw: unknown, code: number, message: string): void {
  assert.throws(
    () => parseLogFilter(raw),
    (e: unknown) => e instanceof RpcError && e.rpcCode === code && e.message === message,
  );
}

describe("log filter matching (geth filterLogs)", () => {
  it("matches everything without criteria", () => {
    assert.equal(matches(undefined, log(A, [])), true);
    assert.equal(matches(null, log(A, [T1])), true);
    assert.equal(matches({}, log(A, [T1])), true);
    assert.equal(matches({ address: [], topics: [] }, log(A, [T1])), true);
  });

  it("matches a single address or any of a list, case-insensitively", () => {
    assert.equal(matches({ address: A }, log(A, [])), true);
    assert.equal(matches({ address: A.toUpperCase().replace("0X", "0x") }, log(A, [])), true);
    assert.equal(matches({ address: A }, log(B, [])), false);
    assert.equal(matches({ address: [A, B] }, log(B, [])), true);
    assert.equal(matches({ address: [A, B] }, log(C, [])), false);
  });

  it("matches topics by position, with OR lists and null wildcards", () => {
    const l = log(A, [T1, T2]);
    assert.equal(matches({ topics: [T1] }, l), true);
    assert.equal(matches({ topics: [T2] }, l), false);
    assert.equal(matches({ topics: [null, T2] }, l), true);
    assert.equal(matches({ topics: [[T3, T1], [T2]] }, l), true);
    assert.equal(matches({ topics: [[T3, T2]] }, l), false);
    assert.equal(matches({ topics: [[], T2] }, l), true);
    // A null alternative makes the whole position a wildcard.
    assert.equal(matches({ topics: [[T3, null]] }, l), true);
  });

  it("rejects logs with fewer topics than positions, even for trailing wildcards", () => {
    assert.equal(matches({ topics: [T1, null, null] }, log(A, [T1, T2])), false);
    assert.equal(matches({ topics: [null] }, log(A, [])), false);
  });

  it("combines address and topics", () => {
    const f = { address: [A, B], topics: [T1] };
    assert.equal(matches(f, log(B, [T1])), true);
    assert.equal(matches(f, log(C, [T1])), false);
    assert.equal(matches(f, log(A, [T2])), false);
  });

  it("applies numeric block bounds, ignores tags", () => {
    assert.equal(matches({ fromBlock: "0x6" }, log(A, [], 5)), false);
    assert.equal(matches({ fromBlock: "0x5", toBlock: "0x5" }, log(A, [], 5)), true);
    assert.equal(matches({ fromBlock: "0x1", toBlock: "0x4" }, log(A, [], 5)), false);
    assert.equal(matches({ fromBlock: "earliest" }, log(A, [], 5)), true);
    assert.equal(matches({ fromBlock: "latest", toBlock: "latest" }, log(A, [], 5)), true);
  });

  it("reads the block number from log JSON", () => {
    assert.equal(logBlockNumber('{"blockNumber":"0x1f","x":1}'), 31n);
    assert.equal(logBlockNumber("{}"), undefined);
  });
});

describe("log filter parsing (geth FilterCriteria)", () => {
  it("rejects bad addresses with geth's texts", () => {
    fails(
      { address: "0x12" },
      -32602,
      "invalid argument 1: invalid address: hex has invalid length 1 after decoding; expected 20 for address",
    );
    fails(
      { address: "aa" },
      -32602,
      "invalid argument 1: invalid address: hex string without 0x prefix",
    );
    fails({ address: [A, 1] }, -32602, "invalid argument 1: non-string address at index 1");
    fails(
      { address: [A, "0xzz"] },
      -32602,
      "invalid argument 1: invalid address at index 1: invalid hex string",
    );
    fails(
      { address: [`${A}0`] },
      -32602,
      "invalid argument 1: invalid address at index 0: hex string of odd length",
    );
    fails({ address: 5 }, -32602, "invalid argument 1: invalid addresses in query");
  });

  it("rejects bad topics with geth's texts", () => {
    fails({ topics: [1] }, -32602, "invalid argument 1: invalid topic(s)");
    fails({ topics: [[T1, 1]] }, -32602, "invalid argument 1: invalid topic(s)");
    fails({ topics: [T1, T1, T1, T1, T1] }, -32602, "invalid argument 1: exceed max topics");
    fails(
      { topics: ["0x01"] },
      -32602,
      "invalid argument 1: hex has invalid length 1 after decoding; expected 32 for topic",
    );
    fails(
      { topics: "x" },
      -32602,
      "invalid argument 1: json: cannot unmarshal string into Go struct field input.topics of type []interface {}",
    );
    fails(
      "x",
      -32602,
      "invalid argument 1: json: cannot unmarshal string into Go value of type filters.input",
    );
  });

  it("rejects ranges a live subscription cannot serve", () => {
    fails({ fromBlock: "pending" }, -32602, "pending logs are not supported");
    fails({ toBlock: "pending" }, -32602, "pending logs are not supported");
    fails({ fromBlock: "0x5", toBlock: "0x4" }, -32602, "invalid block range params");
    fails({ fromBlock: "safe" }, -32602, "invalid block range params");
    fails(
      { fromBlock: "0x1", blockHash: T1 },
      -32602,
      "invalid argument 1: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other",
    );
    fails({ fromBlock: "1" }, -32602, "invalid argument 1: hex string without 0x prefix");
  });

  it("limits addresses per query (geth LogQueryLimit)", () => {
    const many = Array.from({ length: 1001 }, (_, i) => `0x${i.toString(16).padStart(40, "0")}`);
    fails({ address: many }, -32000, "exceed max addresses or topics per search position");
  });

  it("accepts keys in any letter case", () => {
    assert.equal(matches({ ADDRESS: A, Topics: [T1] }, log(A, [T1])), true);
    assert.equal(matches({ ADDRESS: A }, log(B, [T1])), false);
  });
});
