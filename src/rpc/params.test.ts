import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidParamsError } from "../services/errors.ts";
import { bytesToHex } from "../util/hex.ts";
import {
  decodeStorageKey,
  parseAddress,
  parseBlockNumberOnly,
  parseBlockSelector,
  parseBool,
  parseHash32,
  parseHexBytes,
  parseQuantity,
  parseStorageKeyString,
  parseUint,
  parseUint64,
} from "./params.ts";

/** Asserts the parser throws InvalidParamsError (-32602) with exactly `message`. */
function fails(fn: () => unknown, message: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof InvalidParamsError, `not InvalidParamsError: ${String(e)}`);
    assert.equal(e.rpcCode, -32602);
    assert.equal(e.message, message);
    return true;
  });
}

const HASH = `0x${"ab".repeat(32)}`;
const unmarshal = (what: string, type: string) =>
  `json: cannot unmarshal ${what} into Go value of type ${type}`;

describe("parseAddress", () => {
  it("accepts any letter case and both prefixes", () => {
    const addr = "0x52908400098527886E0F7030069857D2E4169EE7";
    assert.equal(bytesToHex(parseAddress(addr)), addr.toLowerCase());
    assert.equal(parseAddress(`0X${"00".repeat(19)}01`)[19], 1);
  });

  it("rejects with geth's messages", () => {
    const t = "common.Address";
    fails(
      () => parseAddress(`0x${"ab".repeat(19)}`),
      "hex string has length 38, want 40 for common.Address",
    );
    fails(() => parseAddress(""), "hex string has length 0, want 40 for common.Address");
    fails(() => parseAddress("0x"), "hex string has length 0, want 40 for common.Address");
    fails(() => parseAddress("ab".repeat(20)), unmarshal("hex string without 0x prefix", t));
    fails(() => parseAddress(`0x${"a".repeat(39)}`), unmarshal("hex string of odd length", t));
    fails(() => parseAddress(`0x${"a".repeat(39)}z`), unmarshal("invalid hex string", t));
    // Go counts bytes: "é" is two, so this has the right length but a bad digit.
    fails(() => parseAddress(`0x${"a".repeat(38)}é`), unmarshal("invalid hex string", t));
    fails(() => parseAddress(`0x${"a".repeat(38)} é`), unmarshal("hex string of odd length", t));
    for (const v of [1, null, true, {}, []])
      fails(() => parseAddress(v), unmarshal("non-string", t));
  });
});

describe("parseHash32", () => {
  it("parses 32 bytes", () => {
    assert.equal(bytesToHex(parseHash32(HASH.toUpperCase().replace("0X", "0x"))), HASH);
  });

  it("rejects with common.Hash messages", () => {
    fails(() => parseHash32("0x1234"), "hex string has length 4, want 64 for common.Hash");
    fails(
      () => parseHash32(HASH.slice(2)),
      unmarshal("hex string without 0x prefix", "common.Hash"),
    );
    fails(() => parseHash32(null), unmarshal("non-string", "common.Hash"));
  });
});

describe("parseBool", () => {
  it("parses booleans; null is false as in Go", () => {
    assert.equal(parseBool(true), true);
    assert.equal(parseBool(false), false);
    assert.equal(parseBool(null), false);
  });

  it("names the JSON kind", () => {
    fails(() => parseBool("true"), unmarshal("string", "bool"));
    fails(() => parseBool(1), unmarshal("number", "bool"));
    fails(() => parseBool({}), unmarshal("object", "bool"));
    fails(() => parseBool([]), unmarshal("array", "bool"));
  });
});

describe("quantities", () => {
  it("parses hexutil.Big", () => {
    assert.equal(parseQuantity("0x0"), 0n);
    assert.equal(parseQuantity("0x1a"), 26n);
    assert.equal(parseQuantity("0XABC"), 0xabcn);
    assert.equal(parseQuantity(""), 0n); // hexutil allows the empty string
    assert.equal(parseQuantity(`0x${"f".repeat(64)}`), 2n ** 256n - 1n);
  });

  it("rejects hexutil.Big input with geth's messages", () => {
    const t = "*hexutil.Big";
    fails(() => parseQuantity("0x"), unmarshal('hex string "0x"', t));
    fails(() => parseQuantity("0x01"), unmarshal("hex number with leading zero digits", t));
    fails(() => parseQuantity("1"), unmarshal("hex string without 0x prefix", t));
    fails(() => parseQuantity("0xg"), unmarshal("invalid hex string", t));
    fails(() => parseQuantity(`0x1${"0".repeat(64)}`), unmarshal("hex number > 256 bits", t));
    // Length is checked before the digits.
    fails(() => parseQuantity(`0x1${"z".repeat(64)}`), unmarshal("hex number > 256 bits", t));
    fails(() => parseQuantity(1), unmarshal("non-string", t));
    fails(() => parseQuantity(null), unmarshal("non-string", t));
  });

  it("parses hexutil.Uint64 and hexutil.Uint", () => {
    assert.equal(parseUint64(`0x${"f".repeat(16)}`), 2n ** 64n - 1n);
    fails(
      () => parseUint64(`0x1${"0".repeat(16)}`),
      unmarshal("hex number > 64 bits", "hexutil.Uint64"),
    );
    fails(
      () => parseUint64("0x00"),
      unmarshal("hex number with leading zero digits", "hexutil.Uint64"),
    );
    assert.equal(parseUint("0x10"), 16n);
    fails(
      () => parseUint(`0x1${"0".repeat(16)}`),
      unmarshal("hex number > 64 bits", "hexutil.Uint"),
    );
  });
});

describe("parseHexBytes", () => {
  it("parses DATA; empty forms are empty bytes", () => {
    assert.deepEqual(parseHexBytes("0xdeadBEEF"), new Uint8Array([0xde, 0xad, 0xbe, 0xef]));
    assert.equal(parseHexBytes("0x").length, 0);
    assert.equal(parseHexBytes("").length, 0);
  });

  it("rejects with hexutil.Bytes messages", () => {
    const t = "hexutil.Bytes";
    fails(() => parseHexBytes("0x0"), unmarshal("hex string of odd length", t));
    fails(() => parseHexBytes("0xzz"), unmarshal("invalid hex string", t));
    fails(() => parseHexBytes("00"), unmarshal("hex string without 0x prefix", t));
    fails(() => parseHexBytes(null), unmarshal("non-string", t));
  });
});

describe("storage keys", () => {
  it("takes only JSON strings; null is the empty string", () => {
    assert.equal(parseStorageKeyString("0x1"), "0x1");
    assert.equal(parseStorageKeyString(null), "");
    fails(() => parseStorageKeyString(1), unmarshal("number", "string"));
    fails(() => parseStorageKeyString(true), unmarshal("bool", "string"));
    fails(() => parseStorageKeyString({}), unmarshal("object", "string"));
  });

  it("decodes leniently like geth", () => {
    const slot = (s: string) => bytesToHex(decodeStorageKey(s));
    const zero = `0x${"0".repeat(64)}`;
    assert.equal(slot("0x1"), `0x${"0".repeat(63)}1`);
    assert.equal(slot("1"), `0x${"0".repeat(63)}1`);
    assert.equal(slot("0X01"), `0x${"0".repeat(63)}1`);
    assert.equal(slot("0xabc"), `0x${"0".repeat(61)}abc`);
    assert.equal(slot("0x"), zero);
    assert.equal(slot(""), zero);
    assert.equal(slot(`0x${"F".repeat(64)}`), `0x${"f".repeat(64)}`);
  });

  it("reports errors with the key quoted as Go's %q", () => {
    const tooLong = "storage key too long (want at most 32 bytes)";
    fails(() => decodeStorageKey(`0x${"0".repeat(65)}`), `${tooLong}: "0x${"0".repeat(65)}"`);
    fails(() => decodeStorageKey("0xzz"), 'invalid hex in storage key: "0xzz"');
    fails(() => decodeStorageKey('0x"'), 'invalid hex in storage key: "0x\\""');
    fails(() => decodeStorageKey("a\nb\u0000"), 'invalid hex in storage key: "a\\nb\\x00"');
    fails(() => decodeStorageKey("é\u00a0"), 'invalid hex in storage key: "é\\u00a0"');
    fails(() => decodeStorageKey("\ud800"), 'invalid hex in storage key: "\ufffd"');
  });
});

describe("parseBlockSelector", () => {
  it("parses tags, numbers and hashes", () => {
    for (const tag of ["latest", "earliest", "pending", "safe", "finalized"] as const) {
      assert.deepEqual(parseBlockSelector(tag), { kind: "tag", tag });
    }
    assert.deepEqual(parseBlockSelector("0x0"), { kind: "number", number: 0n });
    assert.deepEqual(parseBlockSelector("0x1B"), { kind: "number", number: 27n });
    assert.deepEqual(parseBlockSelector("0x7fffffffffffffff"), {
      kind: "number",
      number: 2n ** 63n - 1n,
    });
    const sel = parseBlockSelector(HASH);
    assert.equal(sel.kind, "hash");
    assert.equal(sel.kind === "hash" && bytesToHex(sel.hash), HASH);
    assert.equal(sel.kind === "hash" && sel.requireCanonical, false);
  });

  it("rejects strings with geth's messages", () => {
    fails(() => parseBlockSelector("LATEST"), "hex string without 0x prefix");
    fails(() => parseBlockSelector("1"), "hex string without 0x prefix");
    fails(() => parseBlockSelector(""), "empty hex string");
    fails(() => parseBlockSelector("0x"), 'hex string "0x"');
    fails(() => parseBlockSelector("0x01"), "hex number with leading zero digits");
    fails(() => parseBlockSelector("0xg"), "invalid hex string");
    fails(() => parseBlockSelector("0x8000000000000000"), "blocknumber too high");
    fails(() => parseBlockSelector(`0x1${"0".repeat(16)}`), "hex number > 64 bits");
    // strconv.ParseUint: a bad digit seen before the 17th digit wins over the range error.
    fails(() => parseBlockSelector(`0x${"f".repeat(16)}z`), "invalid hex string");
    fails(() => parseBlockSelector(`0x${"z".repeat(64)}`), "invalid hex string");
    fails(() => parseBlockSelector(`00${"a".repeat(64)}`), "hex string without 0x prefix");
  });

  it("parses EIP-1898 objects, keys case-insensitive, unknown keys ignored", () => {
    assert.deepEqual(parseBlockSelector({ blockNumber: "0x5" }), { kind: "number", number: 5n });
    assert.deepEqual(parseBlockSelector({ blockNumber: "safe", foo: 1 }), {
      kind: "tag",
      tag: "safe",
    });
    assert.deepEqual(parseBlockSelector({ BLOCKNUMBER: "0x2" }), { kind: "number", number: 2n });
    assert.deepEqual(parseBlockSelector({ blockNumber: "0x2", requireCanonical: true }), {
      kind: "number",
      number: 2n,
    });
    const h = parseBlockSelector({ blockHash: HASH, requireCanonical: true });
    assert.equal(h.kind === "hash" && h.requireCanonical, true);
    const n = parseBlockSelector({ blockHash: HASH, requireCanonical: null });
    assert.equal(n.kind === "hash" && n.requireCanonical, false);
  });

  it("rejects objects with geth's messages", () => {
    fails(
      () => parseBlockSelector({ blockNumber: "0x1", blockHash: HASH }),
      "cannot specify both BlockHash and BlockNumber, choose one or the other",
    );
    fails(() => parseBlockSelector({}), "must specify either BlockHash or BlockNumber");
    fails(
      () => parseBlockSelector({ blockNumber: null }),
      "must specify either BlockHash or BlockNumber",
    );
    fails(() => parseBlockSelector(null), "must specify either BlockHash or BlockNumber");
    const objectErr = unmarshal("object", "string");
    fails(() => parseBlockSelector({ blockNumber: "0x01" }), objectErr);
    fails(() => parseBlockSelector({ blockNumber: 1 }), objectErr);
    fails(() => parseBlockSelector({ blockHash: "0x12" }), objectErr);
    fails(() => parseBlockSelector({ blockHash: HASH, requireCanonical: "yes" }), objectErr);
  });

  it("names the JSON kind of other values", () => {
    fails(() => parseBlockSelector(1), unmarshal("number", "string"));
    fails(() => parseBlockSelector(true), unmarshal("bool", "string"));
    fails(() => parseBlockSelector(["latest"]), unmarshal("array", "string"));
  });
});

describe("parseBlockNumberOnly", () => {
  it("parses tags and numbers", () => {
    assert.deepEqual(parseBlockNumberOnly("pending"), { kind: "tag", tag: "pending" });
    assert.deepEqual(parseBlockNumberOnly("0xa"), { kind: "number", number: 10n });
  });

  it("rejects hashes, non-strings and large numbers as geth's rpc.BlockNumber", () => {
    fails(() => parseBlockNumberOnly("0x8000000000000000"), "block number larger than int64");
    fails(() => parseBlockNumberOnly(HASH), "hex number > 64 bits");
    fails(() => parseBlockNumberOnly(5), "hex string without 0x prefix");
    fails(() => parseBlockNumberOnly(null), "hex string without 0x prefix");
    fails(() => parseBlockNumberOnly({ blockNumber: "0x1" }), "hex string without 0x prefix");
    fails(() => parseBlockNumberOnly("Latest"), "hex string without 0x prefix");
  });
});
