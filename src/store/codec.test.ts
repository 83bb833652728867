import assert from "node:assert/strict";
import { test } from "node:test";
import { RLP } from "@ethereumjs/rlp";
import type { ReceiptRecord } from "../chain/types.ts";
import { decodeReceipts, encodeReceipts } from "./codec.ts";

const base: ReceiptRecord = {
  type: 2,
  status: 1,
  root: undefined,
  cumulativeGasUsed: 50_000n,
  gasUsed: 21_000n,
  effectiveGasPrice: 7n,
  from: new Uint8Array(20).fill(1),
  to: new Uint8Array(20).fill(2),
  contractAddress: undefined,
  transactionHash: new Uint8Array(32).fill(3),
  logsBloom: new Uint8Array(256),
  logs: [],
  blobGasUsed: undefined,
  blobGasPrice: undefined,
};

test("OP-stack receipt fields survive the archive's encoding; rows without them still decode", () => {
  const withFee: ReceiptRecord = {
    ...base,
    op: {
      l1Fee: 123n,
      l1GasUsed: 1600n,
      l1GasPrice: 1_000_000_000n,
      l1BlobBaseFee: 0n,
      l1BaseFeeScalar: 2269n,
      l1BlobBaseFeeScalar: 1_055_762n,
      depositNonce: undefined,
      depositReceiptVersion: undefined,
    },
  };
  const deposit: ReceiptRecord = {
    ...base,
    type: 0x7e,
    effectiveGasPrice: 0n,
    op: {
      l1Fee: undefined,
      l1GasUsed: undefined,
      l1GasPrice: undefined,
      l1BlobBaseFee: undefined,
      l1BaseFeeScalar: undefined,
      l1BlobBaseFeeScalar: undefined,
      depositNonce: 0n,
      depositReceiptVersion: 1n,
    },
  };
  const bytes = encodeReceipts(9n, [base, withFee, deposit]);
  const decoded = decodeReceipts(bytes, 5, new Uint8Array(32));
  assert.deepEqual(decoded.receipts, [base, withFee, deposit]);
  // A plain Ethereum receipt is stored with its 14 fields, as before.
  const [, [row]] = RLP.decode(encodeReceipts(9n, [base])) as unknown as [unknown, unknown[][]];
  assert.equal(row?.length, 14);
});
