import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type FixtureChain, fixtureChain, result } from "../../../test/utils/fixtureChain.ts";

let chain: FixtureChain;
const hex = (n: number) => `0x${n.toString(16)}`;

describe("eth_getBlockTransactionCountByHash", () => {
  before(async () => {
    chain = await fixtureChain("txCountByHash");
  });
  after(async () => {
    await chain?.close();
  });

  test("every block's count by hash equals its count by number", async () => {
    for (let n = 0; n <= 54; n++) {
      const block = (await result(chain.call, "eth_getBlockByNumber", [hex(n), false])) as {
        hash: string;
        transactions: string[];
      };
      const count = await result(chain.call, "eth_getBlockTransactionCountByHash", [block.hash]);
      assert.equal(count, hex(block.transactions.length), `block ${n}`);
      assert.equal(
        count,
        await result(chain.call, "eth_getBlockTransactionCountByNumber", [hex(n)]),
      );
    }
  });

  test("unknown hashes are null, pending's zero hash included", async () => {
    const count = (hash: string) =>
      result(chain.call, "eth_getBlockTransactionCountByHash", [hash]);
    assert.equal(await count(`0x${"ab".repeat(32)}`), null);
    assert.equal(await count(`0x${"00".repeat(32)}`), null);
    // A block that is only pre-confirmed has no hash yet: its sealed hash is unknown.
    const hash54 = (
      (await result(chain.call, "eth_getBlockByNumber", ["0x36", false])) as {
        hash: string;
      }
    ).hash;
    const preconfirmed = chain.at({ head: 53, pending: true });
    assert.equal(await result(preconfirmed, "eth_getBlockTransactionCountByHash", [hash54]), null);
    assert.equal(await count(hash54), "0x4");
  });

  test("bad parameters get geth's errors", async () => {
    const cases: Array<[unknown[], string]> = [
      [[], "missing value for required argument 0"],
      [["0x1234"], "invalid argument 0: hex string has length 4, want 64 for common.Hash"],
      [
        ["latest"],
        "invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type common.Hash",
      ],
      [
        [1],
        "invalid argument 0: json: cannot unmarshal non-string into Go value of type common.Hash",
      ],
    ];
    for (const [params, message] of cases) {
      const reply = await chain.call("eth_getBlockTransactionCountByHash", params);
      assert.deepEqual(reply.error, { code: -32602, message }, JSON.stringify(params));
    }
  });
});
