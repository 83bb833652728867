import assert from "node:assert/strict";
import { test } from "node:test";
import { hashTypedData } from "viem";
import { bytesToHex } from "../util/hex.ts";
import { TypedDataError, typedDataDigest } from "./typedData.ts";

const A = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const B = "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc";

test("EIP-712 digests equal viem's: nested structs, arrays of structs, fixed arrays, every atomic kind", () => {
  const types = {
    Person: [
      { name: "name", type: "string" },
      { name: "wallets", type: "address[]" },
    ],
    Mail: [
      { name: "from", type: "Person" },
      { name: "to", type: "Person[]" },
      { name: "contents", type: "string" },
      { name: "attachment", type: "bytes" },
      { name: "flags", type: "bool[2]" },
      { name: "delta", type: "int32" },
      { name: "amount", type: "uint256" },
      { name: "tag", type: "bytes4" },
    ],
  } as const;
  const domain = {
    name: "Ether Mail",
    version: "1",
    chainId: 31337,
    verifyingContract: A,
    salt: `0x${"ab".repeat(32)}`,
  } as const;
  const message = {
    from: { name: "Cow", wallets: [A, B] },
    to: [{ name: "Bob", wallets: [] }],
    contents: "Hello, Bob!",
    attachment: "0xdeadbeef",
    flags: [true, false],
    delta: -5,
    amount: 10n ** 20n,
    tag: "0x01020304",
  } as const;
  const ours = typedDataDigest({
    types,
    primaryType: "Mail",
    domain,
    message: { ...message, amount: message.amount.toString() },
  });
  assert.equal(bytesToHex(ours), hashTypedData({ types, primaryType: "Mail", domain, message }));
});

test("EIP712Domain from the domain's fields when not declared; the domain alone as primary type", () => {
  const types = { M: [{ name: "a", type: "uint8" }] } as const;
  const domain = { name: "x", chainId: 1 } as const;
  assert.equal(
    bytesToHex(typedDataDigest({ types, primaryType: "M", domain, message: { a: 1 } })),
    hashTypedData({ types, primaryType: "M", domain, message: { a: 1 } }),
  );
  const asText = JSON.stringify({ types, primaryType: "M", domain, message: { a: 1 } });
  assert.equal(
    bytesToHex(typedDataDigest(asText)),
    hashTypedData({ types, primaryType: "M", domain, message: { a: 1 } }),
  );
  assert.equal(
    bytesToHex(typedDataDigest({ types: {}, primaryType: "EIP712Domain", domain })),
    hashTypedData({ types: {}, primaryType: "EIP712Domain", domain }),
  );
});

test("invalid typed data is refused with a reason", () => {
  const bad = (data: unknown, reason: RegExp) =>
    assert.throws(
      () => typedDataDigest(data),
      (e) => e instanceof TypedDataError && reason.test((e as Error).message),
    );
  bad({ types: {}, primaryType: "M", domain: {}, message: {} }, /primary type M/);
  bad(
    { types: { M: [{ name: "a", type: "uint8" }] }, primaryType: "M", message: { a: 256 } },
    /invalid uint8/,
  );
  bad(
    { types: { M: [{ name: "a", type: "address" }] }, primaryType: "M", message: { a: "0x12" } },
    /invalid address/,
  );
  bad(
    { types: { M: [{ name: "a", type: "foo" }] }, primaryType: "M", message: { a: 1 } },
    /unknown type foo/,
  );
  bad("{", /not JSON/);
});
