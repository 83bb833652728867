import assert from "node:assert/strict";
import { test } from "node:test";
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createBlob4844Tx } from "@ethereumjs/tx";
import { transactionJson } from "../rpc/format/block.ts";
import { bytesToHex } from "../util/hex.ts";
import { nativeKzg } from "../util/kzg.ts";
import { decodeTransaction } from "./blockView.ts";

// get-blob-tx.io once rendered these as "0x00undefined0001…": the library keeps them as hex
// strings, and the view must turn them into bytes before the formatter prints them.
test("a blob transaction's versioned hashes survive decoding and rendering", () => {
  const common = new Common({
    chain: Mainnet,
    hardfork: Hardfork.Cancun,
    customCrypto: { kzg: nativeKzg },
  });
  const hashes: `0x${string}`[] = [`0x01${"ab".repeat(31)}`, `0x01${"00".repeat(29)}0001`];
  const tx = createBlob4844Tx(
    {
      chainId: 1n,
      nonce: 0n,
      gasLimit: 21_000n,
      maxFeePerGas: 10n,
      maxPriorityFeePerGas: 1n,
      maxFeePerBlobGas: 1n,
      to: `0x${"11".repeat(20)}`,
      blobVersionedHashes: hashes,
    },
    { common },
  ).sign(new Uint8Array(32).fill(7));
  const view = decodeTransaction(common, tx.serialize());
  assert.deepEqual(view.blobVersionedHashes?.map(bytesToHex), hashes);
  const json = JSON.parse(
    transactionJson(view, {
      blockHash: new Uint8Array(32),
      blockNumber: 1n,
      blockTimestamp: 0n,
      baseFeePerGas: 1n,
      index: 0,
      from: new Uint8Array(20),
    }),
  ) as { blobVersionedHashes: string[]; type: string };
  assert.equal(json.type, "0x3");
  assert.deepEqual(json.blobVersionedHashes, hashes);
});
