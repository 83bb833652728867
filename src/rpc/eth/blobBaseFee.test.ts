import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { RLP } from "@ethereumjs/rlp";
import {
  callerFor,
  type FixtureChain,
  fixtureChain,
  result,
} from "../../../test/utils/fixtureChain.ts";
import { createBackend } from "../../node/backendFactory.ts";
import { bigIntToBytes } from "../../util/hex.ts";

let chain: FixtureChain;
const hex = (n: number | bigint) => `0x${n.toString(16)}`;
type Header = { timestamp: string; excessBlobGas?: string };

/** The fixture genesis' blob schedule: update fraction by activation time, newest first. */
const FRACTIONS: ReadonlyArray<readonly [number, bigint]> = [
  [540, 11684671n], // bpo2
  [510, 8346193n], // bpo1
  [480, 5007716n], // osaka
  [450, 5007716n], // prague
  [420, 3338477n], // cancun
];

/** EIP-4844's fake_exponential(1, excess, fraction). */
function blobFee(excess: bigint, fraction: bigint): bigint {
  let output = 0n;
  let accum = fraction;
  for (let i = 1n; accum > 0n; i++) {
    output += accum;
    accum = (accum * excess) / fraction / i;
  }
  return output / fraction;
}

describe("eth_blobBaseFee", () => {
  before(async () => {
    chain = await fixtureChain("blobBaseFee");
  });
  after(async () => {
    await chain?.close();
  });

  test("the head's blob base fee, with its fork's parameters; null before Cancun", async () => {
    let priced = 0;
    for (let h = 0; h <= 54; h++) {
      const header = (await result(chain.call, "eth_getBlockByNumber", [hex(h), false])) as Header;
      const fee = await result(chain.at({ head: h }), "eth_blobBaseFee");
      if (header.excessBlobGas === undefined) {
        assert.equal(fee, null, `head ${h}`);
        continue;
      }
      const time = Number(header.timestamp);
      const fraction = FRACTIONS.find(([at]) => time >= at)![1];
      assert.equal(fee, hex(blobFee(BigInt(header.excessBlobGas), fraction)), `head ${h}`);
      // Blob transactions of that block paid exactly this.
      const receipts = (await result(chain.call, "eth_getBlockReceipts", [hex(h)])) as Array<{
        blobGasPrice?: string;
      }>;
      for (const r of receipts) {
        if (r.blobGasPrice === undefined) continue;
        assert.equal(fee, r.blobGasPrice, `head ${h}`);
        priced++;
      }
    }
    assert.ok(priced >= 6, `blob receipts checked: ${priced}`);
    assert.equal(await result(chain.call, "eth_blobBaseFee"), "0x1");
  });

  test("each fork's update fraction prices a non-zero excess", async () => {
    // The fixture chain never had an excess: give its head one, at times in each fork.
    const hash = chain.store.canonicalHash(54)!;
    const fields = RLP.decode(chain.store.headerRlp(54, hash)!) as Uint8Array[];
    const excess = 50_000_000n;
    for (const [time, fraction] of FRACTIONS) {
      // Before Prague (450) a header has no requests hash.
      const header = time < 450 ? fields.slice(0, 20) : [...fields];
      header[11] = bigIntToBytes(BigInt(time)); // timestamp
      header[18] = bigIntToBytes(excess); // excessBlobGas
      const headerRlp = (n: number, h: Uint8Array) =>
        n === 54 ? RLP.encode(header) : chain.store.headerRlp(n, h);
      const call = callerFor(createBackend(chain.spec, { ...chain.store, headerRlp }));
      const fee = await result(call, "eth_blobBaseFee");
      assert.equal(fee, hex(blobFee(excess, fraction)), `time ${time}`);
      assert.ok(BigInt(fee as string) > 1n);
    }
  });

  test("a pre-confirmed block does not move it: geth reads the head", async () => {
    assert.equal(
      await result(chain.at({ head: 53, pending: true }), "eth_blobBaseFee"),
      await result(chain.at({ head: 53 }), "eth_blobBaseFee"),
    );
  });

  test("takes no parameters", async () => {
    assert.deepEqual((await chain.call("eth_blobBaseFee", [1])).error, {
      code: -32602,
      message: "too many arguments, want at most 0",
    });
  });
});
