import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { brotliCompressSync } from "node:zlib";
import { flashblockWireJson } from "../pending/flashblockWire.ts";
import type { PendingBase } from "../pending/types.ts";
import { keccak256 } from "../util/crypto.ts";
import { bytesToHex, hexToBytes } from "../util/hex.ts";
import { FlashblockParseError, parseFlashblock } from "./flashblock.ts";
import { brotliFrame, decodeFrame, FrameDecodeError } from "./flashblockFrame.ts";

const h32 = (b: string) => `0x${b.repeat(64)}`;
const DEPOSIT = "0x7ef8f8a0aaaa";
const TRANSFER = "0x02f86b8221058203e8";

/** Index 0 in Base's shape (base/base `crates/alloy/flashblocks`), v0.8 metadata. */
function base0(): Record<string, unknown> {
  return {
    payload_id: "0x03c33cc62b81edb6",
    index: 0,
    base: {
      parent_beacon_block_root: h32("1"),
      parent_hash: h32("2"),
      fee_recipient: "0x4200000000000000000000000000000000000011",
      prev_randao: h32("3"),
      block_number: "0x1fe4052",
      gas_limit: "0x3938700",
      timestamp: "0x690fdf84",
      extra_data: "0x000000003200000004",
      base_fee_per_gas: "0x34",
    },
    diff: {
      state_root: h32("0"),
      receipts_root: h32("4"),
      logs_bloom: `0x${"00".repeat(256)}`,
      gas_used: "0xb41c",
      block_hash: h32("5"),
      transactions: [DEPOSIT],
      withdrawals: [],
      withdrawals_root: h32("6"),
      blob_gas_used: "0x0",
    },
    metadata: { block_number: 33439826, access_list: [], some_future_field: { x: 1 } },
    unknown_top_level: true,
  };
}

function later(index: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const m = base0();
  const diff: Record<string, unknown> = {
    ...(m.diff as Record<string, unknown>),
    transactions: [TRANSFER],
  };
  delete diff.blob_gas_used;
  return { payload_id: m.payload_id, index, diff, metadata: { block_number: 33439826 }, ...extra };
}

function parseError(json: unknown): string {
  try {
    parseFlashblock(json);
  } catch (e) {
    assert.ok(e instanceof FlashblockParseError);
    assert.equal(e.code, "FLASHBLOCK_SHAPE");
    return e.message;
  }
  assert.fail("parsed");
}

describe("parseFlashblock", () => {
  it("parses Base's index 0 into bigint and bytes, ignoring unknown fields", () => {
    const fb = parseFlashblock(base0());
    assert.equal(fb.payloadId, "0x03c33cc62b81edb6");
    assert.equal(fb.index, 0);
    assert.equal(fb.blockNumber, 33439826);
    const b = fb.base!;
    assert.equal(b.blockNumber, 33439826);
    assert.equal(b.gasLimit, 60_000_000n);
    assert.equal(b.timestamp, 0x690fdf84n);
    assert.equal(b.baseFeePerGas, 0x34n);
    assert.deepEqual(b.parentHash, hexToBytes(h32("2")));
    assert.deepEqual(b.feeRecipient, hexToBytes("0x4200000000000000000000000000000000000011"));
    assert.deepEqual(b.extraData, hexToBytes("0x000000003200000004"));
    assert.equal(fb.diff.gasUsed, 0xb41cn);
    assert.equal(fb.diff.blobGasUsed, 0n);
    assert.equal(fb.diff.logsBloom.length, 256);
    assert.equal(fb.diff.transactions.length, 1);
    const tx = fb.diff.transactions[0]!;
    assert.deepEqual(tx.raw, hexToBytes(DEPOSIT));
    assert.deepEqual(tx.hash, keccak256(hexToBytes(DEPOSIT)));
    assert.equal(fb.metadata.receipts, undefined);
  });

  it('accepts later indexes with "base": null or no base, and no blob_gas_used', () => {
    const a = parseFlashblock(later(3));
    assert.equal(a.base, undefined);
    assert.equal(a.diff.blobGasUsed, undefined);
    assert.equal(a.blockNumber, 33439826);
    const b = parseFlashblock(later(4, { base: null }));
    assert.equal(b.base, undefined);
    assert.equal(b.index, 4);
  });

  it("keeps v0.5 metadata (receipts, balances) for diagnostics", () => {
    const m = later(1, {
      metadata: {
        block_number: 33439826,
        receipts: { [h32("A")]: { type: "0x2", status: true, cumulativeGasUsed: "0x5208" } },
        new_account_balances: { "0x00000000000000000000000000000000000000AB": "0xde0b6b3a7640000" },
      },
    });
    const fb = parseFlashblock(m);
    assert.deepEqual([...fb.metadata.receipts!.keys()], [h32("a")]);
    assert.equal(
      fb.metadata.newAccountBalances!.get("0x00000000000000000000000000000000000000ab"),
      10n ** 18n,
    );
    // Informational fields that do not parse are dropped, not fatal.
    const bad = later(1, {
      metadata: { block_number: 33439826, new_account_balances: { "0x01": 5 } },
    });
    assert.equal(parseFlashblock(bad).metadata.newAccountBalances, undefined);
  });

  it("reads what flashnode's own /flashblocks encoder sends", () => {
    const raw = hexToBytes(TRANSFER);
    const base: PendingBase = {
      number: 7,
      parentHash: hexToBytes(h32("2")),
      timestamp: 1_700_000_000n,
      gasLimit: 60_000_000n,
      baseFeePerGas: 1_000_000_000n,
      coinbase: hexToBytes("0x4200000000000000000000000000000000000011"),
      prevRandao: hexToBytes(h32("3")),
      parentBeaconBlockRoot: hexToBytes(h32("1")),
      extraData: new Uint8Array(0),
      blobGasPrice: 1n,
      excessBlobGas: 0n,
    };
    for (const index of [0, 1]) {
      const json = flashblockWireJson({
        payloadId: "0x0102030405060708",
        index,
        base,
        transactions: [{ hash: keccak256(raw), raw }],
        receipts: [],
        balances: [
          [hexToBytes(`0x${"ab".repeat(20)}`), { nonce: 1n, balance: 5n, codeHash: undefined }],
        ],
        receiptsRoot: hexToBytes(h32("4")),
        logsBloom: new Uint8Array(256),
        gasUsed: 21_000n,
        blobGasUsed: 0n,
        partialBlockHash: hexToBytes(h32("5")),
      });
      const fb = parseFlashblock(JSON.parse(json));
      assert.equal(fb.index, index);
      assert.equal(fb.blockNumber, 7);
      assert.equal(fb.payloadId, "0x0102030405060708");
      assert.deepEqual(fb.diff.transactions[0]!.hash, keccak256(raw));
      assert.equal(fb.diff.gasUsed, 21_000n);
      assert.equal(fb.metadata.newAccountBalances?.get(`0x${"ab".repeat(20)}`), 5n);
      if (index === 0) {
        assert.equal(fb.base?.timestamp, 1_700_000_000n);
        assert.equal(bytesToHex(fb.base!.parentHash), h32("2"));
      } else {
        assert.equal(fb.base, undefined);
      }
    }
  });

  it("refuses malformed messages with the path of the bad field", () => {
    const noBase = base0();
    delete noBase.base;
    assert.match(parseError(noBase), /^base: missing on index 0/);
    assert.match(parseError(later(-1)), /^index: /);
    assert.match(parseError(later(1.5)), /^index: /);
    assert.match(
      parseError({ ...later(1), payload_id: "0x0102" }),
      /^payload_id: expected 8 bytes/,
    );
    assert.match(parseError({ ...later(1), metadata: {} }), /^metadata.block_number: missing/);
    assert.match(
      parseError({ ...base0(), metadata: { block_number: 5 } }),
      /^metadata.block_number: 5 differs/,
    );
    const short = later(1);
    (short.diff as Record<string, unknown>).block_hash = "0x1234";
    assert.match(parseError(short), /^diff.block_hash: expected 32 bytes/);
    const badTx = later(1);
    (badTx.diff as Record<string, unknown>).transactions = ["0xzz"];
    assert.match(parseError(badTx), /^diff.transactions\[0\]: malformed hex/);
    const emptyTx = later(1);
    (emptyTx.diff as Record<string, unknown>).transactions = ["0x"];
    assert.match(parseError(emptyTx), /^diff.transactions\[0\]: empty/);
    const badGas = later(1);
    (badGas.diff as Record<string, unknown>).gas_used = 21000;
    assert.match(parseError(badGas), /^diff.gas_used: expected a hex quantity/);
    assert.match(parseError([1, 2]), /^message: expected an object/);
    assert.match(parseError(null), /^message: /);
  });
});

describe("decodeFrame", () => {
  const json = JSON.stringify(base0());

  it("reads text, binary JSON and brotli frames", () => {
    assert.deepEqual(decodeFrame(json).json, base0());
    assert.equal(decodeFrame(json).encoding, "text");
    const binary = decodeFrame(Buffer.from(` \n${json}`));
    assert.equal(binary.encoding, "binary-json");
    assert.deepEqual(binary.json, base0());
    const brotli = decodeFrame(brotliFrame(json));
    assert.equal(brotli.encoding, "brotli");
    assert.deepEqual(brotli.json, base0());
    assert.equal(brotli.bytes, Buffer.byteLength(json));
  });

  it("says what is wrong with a frame that is not a flashblock message", () => {
    const code = (data: string | Uint8Array, max?: number) => {
      try {
        decodeFrame(data, max);
      } catch (e) {
        assert.ok(e instanceof FrameDecodeError);
        return e.code;
      }
      return "decoded";
    };
    assert.equal(code("{not json"), "FRAME_JSON");
    assert.equal(code(Buffer.from([0xff, 0x00, 0x13, 0x37])), "FRAME_BROTLI");
    assert.equal(code(brotliCompressSync(Buffer.from("plain words"))), "FRAME_JSON");
    // A small frame that decompresses to far more than allowed.
    const bomb = brotliCompressSync(Buffer.alloc(1 << 20, 0x20));
    assert.ok(bomb.length < 1000);
    assert.equal(code(bomb, 64 * 1024), "FRAME_TOO_LARGE");
  });
});
