// keccak256 through the one reused sponge: the known digests, inputs over several blocks of the
// sponge's rate, views into larger buffers, and digests that stay what they were when the next
// hash runs. viem's keccak256 (pure JS, @noble/hashes) is the independent reference.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { keccak256 as referenceKeccak } from "viem";
import { keccak256 } from "./crypto.ts";
import { bytesToHex } from "./hex.ts";

const utf8 = new TextEncoder();

describe("keccak256", () => {
  test("known digests", () => {
    assert.equal(
      bytesToHex(keccak256(new Uint8Array(0))),
      "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
    );
    assert.equal(
      bytesToHex(keccak256(utf8.encode("abc"))),
      "0x4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45",
    );
  });

  test("every length up to several rate blocks, and views at an offset, as the reference", () => {
    const big = Uint8Array.from({ length: 1200 }, (_, i) => (i * 131 + 7) & 0xff);
    for (let length = 0; length <= 700; length += 1) {
      const view = big.subarray(length % 13, (length % 13) + length);
      assert.equal(bytesToHex(keccak256(view)), referenceKeccak(view), `${length} bytes`);
    }
  });

  test("a digest is its own buffer: the next hash does not change it", () => {
    const first = keccak256(utf8.encode("first"));
    const copy = Uint8Array.from(first);
    const second = keccak256(utf8.encode("second"));
    assert.deepEqual(Uint8Array.from(first), copy);
    assert.notDeepEqual(Uint8Array.from(first), Uint8Array.from(second));
    assert.equal(first.length, 32);
  });
});
