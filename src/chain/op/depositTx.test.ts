import assert from "node:assert/strict";
import { test } from "node:test";
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import { keccak256 } from "../../util/crypto.ts";
import { bytesToHex, hexToBytes } from "../../util/hex.ts";
import { blockFromRlp, decodeBlockTransaction } from "./blockTx.ts";
import { DepositDecodeError, DepositTx, decodeDepositTx, encodeDeposit } from "./depositTx.ts";
import { decodeL1InfoEcotone, encodeL1InfoEcotone, l1InfoDeposit } from "./l1Info.ts";

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
const fields = {
  sourceHash: new Uint8Array(32).fill(0xaa),
  from: hexToBytes("0x00000000000000000000000000000000000d3e01"),
  to: undefined,
  mint: 10n ** 18n,
  value: 5n,
  gasLimit: 100_000n,
  isSystemTx: false,
  data: Uint8Array.of(0x60, 0x00),
};

test("a deposit encodes as 0x7e ‖ rlp(8 fields), hashes that envelope, and decodes back", () => {
  const raw = encodeDeposit(fields);
  assert.equal(raw[0], 0x7e);
  const items = RLP.decode(raw.subarray(1)) as Uint8Array[];
  assert.equal(items.length, 8);
  assert.deepEqual(items[2], new Uint8Array(0), "a creation has an empty `to`");
  const tx = decodeDepositTx(raw, common);
  assert.deepEqual(tx.serialize(), raw);
  assert.equal(bytesToHex(tx.hash()), bytesToHex(keccak256(raw)));
  assert.deepEqual(tx.fields(), fields);
  assert.ok(decodeBlockTransaction(raw, common) instanceof DepositTx);
  // A creation's intrinsic gas: 21000 + 32000 + calldata (one non-zero, one zero byte) + 1 word.
  assert.equal(tx.getIntrinsicGas(), 21000n + 32000n + 16n + 4n + 2n);
});

test("malformed deposits are refused with the reason", () => {
  const bad = [
    Uint8Array.of(0x7e, 0xc0),
    Uint8Array.of(0x7e, 0x01),
    encodeDeposit({ ...fields, sourceHash: new Uint8Array(31) }),
  ];
  for (const raw of bad) assert.throws(() => decodeDepositTx(raw, common), DepositDecodeError);
  const flag = RLP.decode(encodeDeposit(fields).subarray(1)) as Uint8Array[];
  flag[6] = Uint8Array.of(2);
  assert.throws(
    () => decodeDepositTx(Uint8Array.from([0x7e, ...RLP.encode(flag)]), common),
    /isSystemTx is not a boolean/,
  );
});

test("the L1-info calldata is Ecotone's 164 bytes, read back as op-geth reads it", () => {
  const v = {
    number: 7n,
    timestamp: 84n,
    baseFee: 1_000_000_007n,
    blobBaseFee: 3n,
    hash: new Uint8Array(32).fill(1),
    sequenceNumber: 2n,
    batcherHash: new Uint8Array(32),
    baseFeeScalar: 2269,
    blobBaseFeeScalar: 1_055_762,
  };
  const data = encodeL1InfoEcotone(v);
  assert.equal(data.length, 164);
  assert.equal(bytesToHex(data.subarray(0, 4)), "0x440a5e20");
  assert.deepEqual(decodeL1InfoEcotone(data), {
    l1BaseFee: v.baseFee,
    l1BlobBaseFee: v.blobBaseFee,
    baseFeeScalar: 2269n,
    blobBaseFeeScalar: 1_055_762n,
  });
  const tx = l1InfoDeposit(v, common);
  assert.equal(tx.from.toString(), "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001");
  assert.equal(tx.gasLimit, 1_000_000n);
  assert.equal(tx.isSystemTx, false);
});

test("a block with a deposit round-trips through its RLP", () => {
  const tx = new DepositTx(fields, common);
  // A Prague header: the 15 London fields, withdrawals root, blob gas used/excess, beacon root,
  // requests hash.
  const header = [
    new Uint8Array(32),
    keccak256(RLP.encode([])),
    new Uint8Array(20),
    new Uint8Array(32),
    new Uint8Array(32),
    new Uint8Array(32),
    new Uint8Array(256),
    new Uint8Array(0),
    Uint8Array.of(1),
    Uint8Array.of(0x01, 0x00, 0x00),
    new Uint8Array(0),
    new Uint8Array(0),
    new Uint8Array(0),
    new Uint8Array(32),
    new Uint8Array(8),
    Uint8Array.of(7),
    new Uint8Array(32),
    new Uint8Array(0),
    new Uint8Array(0),
    new Uint8Array(32),
    new Uint8Array(32),
  ];
  const raw = RLP.encode([header, [tx.serialize()], [], []]);
  const block = blockFromRlp(raw, { common, skipConsensusFormatValidation: true });
  assert.equal(block.transactions.length, 1);
  assert.equal(bytesToHex(block.transactions[0]!.hash()), bytesToHex(tx.hash()));
  assert.deepEqual(block.serialize(), raw);
});
