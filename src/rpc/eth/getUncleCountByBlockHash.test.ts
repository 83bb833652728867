import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type FixtureChain, fixtureChain, result } from "../../../test/utils/fixtureChain.ts";

let chain: FixtureChain;
const hex = (n: number) => `0x${n.toString(16)}`;

describe("eth_getUncleCountByBlockHash", () => {
  before(async () => {
    chain = await fixtureChain("uncleCountByHash");
  });
  after(async () => {
    await chain?.close();
  });

  test("every block's count by hash equals its uncle list's length", async () => {
    for (let n = 0; n <= 54; n++) {
      const block = (await result(chain.call, "eth_getBlockByNumber", [hex(n), false])) as {
        hash: string;
        uncles: string[];
      };
      assert.equal(
        await result(chain.call, "eth_getUncleCountByBlockHash", [block.hash]),
        hex(block.uncles.length),
        `block ${n}`,
      );
    }
  });

  test("unknown hashes are null; an uncle's own hash is not a stored block", async () => {
    const count = (hash: string) => result(chain.call, "eth_getUncleCountByBlockHash", [hash]);
    assert.equal(await count(`0x${"ab".repeat(32)}`), null);
    assert.equal(await count(`0x${"00".repeat(32)}`), null);
    const block3 = (await result(chain.call, "eth_getBlockByNumber", ["0x3", false])) as {
      hash: string;
      uncles: string[];
    };
    assert.equal(await count(block3.hash), "0x1");
    assert.equal(await count(block3.uncles[0]!), null);
  });

  test("bad parameters get geth's errors", async () => {
    const cases: Array<[unknown[], string]> = [
      [[], "missing value for required argument 0"],
      [
        ["0x3"],
        "invalid argument 0: json: cannot unmarshal hex string of odd length into Go value of type common.Hash",
      ],
      [
        [`0x${"zz".repeat(32)}`],
        "invalid argument 0: json: cannot unmarshal invalid hex string into Go value of type common.Hash",
      ],
    ];
    for (const [params, message] of cases) {
      const reply = await chain.call("eth_getUncleCountByBlockHash", params);
      assert.deepEqual(reply.error, { code: -32602, message }, JSON.stringify(params));
    }
  });
});
