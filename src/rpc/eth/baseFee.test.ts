import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type FixtureChain, fixtureChain, result } from "../../../test/utils/fixtureChain.ts";

let chain: FixtureChain;
const hex = (n: number | bigint) => `0x${n.toString(16)}`;
type Header = { baseFeePerGas?: string; gasLimit: string; gasUsed: string };

/** EIP-1559's next base fee, written out (elasticity 2, change denominator 8). */
function nextBaseFee(h: Header): bigint {
  const fee = BigInt(h.baseFeePerGas!);
  const target = BigInt(h.gasLimit) / 2n;
  const used = BigInt(h.gasUsed);
  if (used === target) return fee;
  if (used > target) {
    const delta = (fee * (used - target)) / target / 8n;
    return fee + (delta > 1n ? delta : 1n);
  }
  return fee - (fee * (target - used)) / target / 8n;
}

describe("eth_baseFee", () => {
  before(async () => {
    chain = await fixtureChain("baseFee");
  });
  after(async () => {
    await chain?.close();
  });

  test("the base fee of the block after the head", async () => {
    const head = (await result(chain.call, "eth_getBlockByNumber", ["latest", false])) as Header;
    const fee = await result(chain.call, "eth_baseFee");
    assert.equal(fee, hex(nextBaseFee(head)));
    assert.equal(fee, "0x16dfe9b");
  });

  test("at every head, the next block's base fee; null before London, 1 gwei at its eve", async () => {
    for (let h = 0; h < 54; h++) {
      const next = (await result(chain.call, "eth_getBlockByNumber", [
        hex(h + 1),
        false,
      ])) as Header;
      const fee = await result(chain.at({ head: h }), "eth_baseFee");
      // London is block 27: heads up to 25 have no next base fee.
      assert.equal(fee, next.baseFeePerGas ?? null, `head ${h}`);
      if (h === 26) assert.equal(fee, "0x3b9aca00");
    }
  });

  test("a pre-confirmed block does not move it: geth reads the head", async () => {
    const block54 = (await result(chain.call, "eth_getBlockByNumber", ["0x36", false])) as Header;
    assert.equal(
      await result(chain.at({ head: 53, pending: true }), "eth_baseFee"),
      block54.baseFeePerGas,
    );
  });

  test("takes no parameters", async () => {
    assert.deepEqual((await chain.call("eth_baseFee", ["latest"])).error, {
      code: -32602,
      message: "too many arguments, want at most 0",
    });
  });
});
