// rawTransactionFromJson against geth's own answers (the execution-apis conformance chain carried
// in fixtures/: eth_getTransactionByHash of each type, debug_getRawTransaction), the variants
// other providers show, a 4844 transaction signed by viem, deposits, and malformed objects.
import assert from "node:assert/strict";
import { test } from "node:test";
import { keccak256 as keccak256Hex, parseTransaction } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ioCases } from "../../test/utils/fixtures.ts";
import { keccak256 } from "../util/crypto.ts";
import { bytesToHex } from "../util/hex.ts";
import { encodeDeposit } from "./op/depositTx.ts";
import { rawTransactionFromJson, TransactionJsonError } from "./txJson.ts";

type Tx = Record<string, unknown>;

/** geth's answer in an execution-apis .io file, e.g. ("tests", "eth_getBlockByNumber", "get-latest"). */
function answer(folder: "tests" | "tests-more", method: string, name: string): unknown {
  const io = ioCases(folder, [method]).find((c) => c.file === `${method}/${name}.io`);
  return (JSON.parse(io!.response) as { result: unknown }).result;
}

const byHash = (name: string) => answer("tests-more", "eth_getTransactionByHash", name) as Tx;
const GETH = {
  legacy: byHash("get-legacy-tx"),
  create: byHash("get-legacy-create"),
  accessList: byHash("get-access-list"),
  blob: byHash("get-blob-tx"),
  setCode: byHash("get-setcode-tx"),
};
/** A 1559 transaction and EIP-155 legacy ones (v = 2·chainId + 35/36), from geth's head block. */
const HEAD = answer("tests", "eth_getBlockByNumber", "get-latest") as { transactions: Tx[] };
const hex = (tx: Tx) => bytesToHex(rawTransactionFromJson(tx));

function assertRejected(tx: Tx, pattern: RegExp): void {
  assert.throws(
    () => rawTransactionFromJson(tx),
    (e: unknown) => {
      assert.ok(e instanceof TransactionJsonError, String(e));
      assert.equal(e.code, "TRANSACTION_JSON");
      assert.match(e.message, pattern);
      return true;
    },
  );
}

test("geth's transactions of every type encode to bytes hashing to their hash", () => {
  for (const tx of [...Object.values(GETH), ...HEAD.transactions]) {
    assert.equal(bytesToHex(keccak256(rawTransactionFromJson(tx))), tx.hash);
  }
  assert.deepEqual([...new Set(Object.values(GETH).map((t) => t.type))].sort(), [
    "0x0",
    "0x1",
    "0x3",
    "0x4",
  ]);
  assert.equal(GETH.legacy.v, "0x1c", "a pre-EIP-155 signature");
  assert.equal(GETH.create.to, null, "a contract creation");
  assert.ok(BigInt(HEAD.transactions[0]!.v as string) > 36n, "EIP-155 signatures");
  // The typed envelope and the legacy RLP list, as the type byte (or list prefix) shows.
  assert.equal(hex(GETH.blob).slice(0, 4), "0x03");
  assert.equal(hex(GETH.setCode).slice(0, 4), "0x04");
  assert.ok(rawTransactionFromJson(GETH.legacy)[0]! >= 0xc0);
});

test("geth's debug_getRawTransaction is the same bytes", () => {
  const io = ioCases("tests-more", ["debug_getRawTransaction"]).find((c) =>
    c.file.endsWith("get-tx.io"),
  )!;
  assert.deepEqual((JSON.parse(io.request) as { params: unknown[] }).params, [GETH.create.hash]);
  assert.equal(hex(GETH.create), (JSON.parse(io.response) as { result: string }).result);
});

test("fields providers show differently encode the same", () => {
  const { yParity: _, ...onlyV } = GETH.accessList;
  const { input, ...dataNamed } = GETH.legacy;
  const { type: _t, ...untyped } = GETH.legacy;
  const { to: _to, ...noTo } = GETH.create;
  const auth = (GETH.setCode.authorizationList as Tx[])[0]!;
  const { yParity: authParity, ...authV } = auth;
  const variants: [Tx, Tx][] = [
    [GETH.accessList, onlyV],
    [GETH.legacy, { ...dataNamed, data: input }],
    [GETH.legacy, untyped],
    [GETH.create, noTo],
    // Typed signatures as 27/28, r and s as 32-byte words, quantities with leading zeros.
    [GETH.blob, { ...GETH.blob, yParity: undefined, v: "0x1c" }],
    [GETH.accessList, { ...GETH.accessList, yParity: undefined, v: "0x1b" }],
    [GETH.blob, { ...GETH.blob, r: `0x00${(GETH.blob.r as string).slice(2)}`, nonce: "0x00c7" }],
    [GETH.setCode, { ...GETH.setCode, authorizationList: [{ ...authV, v: authParity }] }],
  ];
  for (const [shown, variant] of variants) assert.equal(hex(variant), hex(shown));
});

test("a 4844 transaction signed by viem, in its block form, encodes as viem serializes it", async () => {
  const account = privateKeyToAccount(`0x${"11".repeat(32)}`);
  const fields = {
    chainId: 8453,
    type: "eip4844",
    nonce: 9,
    gas: 50_000n,
    maxFeePerGas: 3_000_000_000n,
    maxPriorityFeePerGas: 1_000_000n,
    maxFeePerBlobGas: 7n,
    to: "0x000000000000000000000000000000000000beef",
    value: 0n,
    data: "0x1234",
    accessList: [{ address: "0x000000000000000000000000000000000000cafe", storageKeys: [] }],
    blobVersionedHashes: [`0x01${"ab".repeat(31)}`, `0x01${"cd".repeat(31)}`],
  } as const;
  const signed = await account.signTransaction(fields);
  const sig = parseTransaction(signed);
  const q = (n: bigint | number) => `0x${n.toString(16)}`;
  const json: Tx = {
    type: "0x3",
    hash: keccak256Hex(signed),
    chainId: q(fields.chainId),
    nonce: q(fields.nonce),
    gas: q(fields.gas),
    maxFeePerGas: q(fields.maxFeePerGas),
    maxPriorityFeePerGas: q(fields.maxPriorityFeePerGas),
    maxFeePerBlobGas: q(fields.maxFeePerBlobGas),
    to: fields.to,
    value: "0x0",
    input: fields.data,
    accessList: fields.accessList,
    blobVersionedHashes: fields.blobVersionedHashes,
    yParity: q(sig.yParity!),
    r: sig.r,
    s: sig.s,
  };
  assert.equal(hex(json), signed);
});

test("deposits: mint and isSystemTx may be absent, `to` null for a creation", () => {
  const base = {
    sourceHash: new Uint8Array(32).fill(7),
    from: new Uint8Array(20).fill(0xde),
    to: undefined,
    mint: 0n,
    value: 3n,
    gasLimit: 1_000_000n,
    isSystemTx: true,
    data: Uint8Array.of(1, 2),
  };
  const raw = encodeDeposit(base);
  const json: Tx = {
    type: "0x7e",
    hash: bytesToHex(keccak256(raw)),
    sourceHash: bytesToHex(base.sourceHash),
    from: bytesToHex(base.from),
    to: null,
    value: "0x3",
    gas: "0xf4240",
    isSystemTx: true,
    input: "0x0102",
    // What op-geth shows beside the encoded fields: not part of the encoding.
    nonce: "0x5",
    gasPrice: "0x0",
    v: "0x0",
    r: "0x0",
    s: "0x0",
    depositReceiptVersion: "0x1",
  };
  assert.equal(hex(json), bytesToHex(raw));
  assert.equal(hex({ ...json, mint: "0x0" }), bytesToHex(raw));
  const minted = encodeDeposit({ ...base, mint: 10n ** 18n, isSystemTx: false });
  const { isSystemTx: _, ...notSystem } = json;
  assert.equal(
    hex({ ...notSystem, mint: "0xde0b6b3a7640000", hash: bytesToHex(keccak256(minted)) }),
    bytesToHex(minted),
  );
  assertRejected({ ...json, isSystemTx: "0x1" }, /isSystemTx is not a boolean/);
});

test("a transaction whose fields do not give its hash is refused, naming hash and type", () => {
  const tx = HEAD.transactions[0]!;
  const wrongHash = `0x${"00".repeat(32)}`;
  assertRejected(
    { ...tx, hash: wrongHash },
    new RegExp(`transaction ${wrongHash} \\(type 0x0\\): .*a field flashnode does not know`),
  );
  // A field the chain signs that the object misstates.
  assertRejected(
    { ...GETH.setCode, chainId: "0x1" },
    new RegExp(`transaction ${GETH.setCode.hash} \\(type 0x4\\).*does not know`),
  );
});

test("an unknown type, a missing or malformed field are refused, naming the hash", () => {
  const h = GETH.blob.hash as string;
  assertRejected({ ...GETH.blob, type: "0x5" }, new RegExp(`${h} \\(type 0x5\\).*does not know`));
  assertRejected({ ...GETH.blob, type: 2 }, new RegExp(`${h} has type 2`));
  const missing = (field: string) => {
    const { [field]: _, ...rest } = GETH.blob;
    return rest;
  };
  assertRejected(missing("maxFeePerBlobGas"), new RegExp(`${h}.*maxFeePerBlobGas is missing`));
  assertRejected(missing("accessList"), new RegExp(`${h}.*accessList is missing`));
  assertRejected(missing("input"), new RegExp(`${h}.*input \\(or data\\) is missing`));
  assertRejected(missing("hash"), /\(no hash\).*field hash is missing/);
  assertRejected({ ...GETH.blob, to: null }, new RegExp(`${h}.*field to is missing`));
  assertRejected(
    { ...GETH.blob, yParity: undefined, v: undefined },
    new RegExp(`${h}.*yParity \\(or v\\) is missing`),
  );
  assertRejected({ ...GETH.blob, yParity: "0x2" }, /yParity is 0x2, not a y-parity/);
  assertRejected({ ...GETH.blob, nonce: "12" }, /field nonce is not hex: "12"/);
  assertRejected({ ...GETH.blob, to: "0x1234" }, /field to is 2 bytes, not 20/);
  const auth = (GETH.setCode.authorizationList as Tx[])[0]!;
  assertRejected(
    { ...GETH.setCode, authorizationList: [{ ...auth, nonce: undefined }] },
    /authorizationList\[0\]\.nonce is missing/,
  );
  assertRejected(
    { ...GETH.accessList, accessList: [{ address: GETH.accessList.to }] },
    /accessList\[0\]\.storageKeys is missing/,
  );
});
