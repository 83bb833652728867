import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type FixtureChain, fixtureChain, result } from "../../../test/utils/fixtureChain.ts";

let chain: FixtureChain;
const hex = (n: number) => `0x${n.toString(16)}`;

describe("eth_getUncleCountByBlockNumber", () => {
  before(async () => {
    chain = await fixtureChain("uncleCountByNumber");
  });
  after(async () => {
    await chain?.close();
  });

  test("every block's count is the length of its uncle list; none after the merge", async () => {
    let withUncles = 0;
    for (let n = 0; n <= 54; n++) {
      const block = (await result(chain.call, "eth_getBlockByNumber", [hex(n), false])) as {
        uncles: string[];
      };
      const count = await result(chain.call, "eth_getUncleCountByBlockNumber", [hex(n)]);
      assert.equal(count, hex(block.uncles.length), `block ${n}`);
      if (block.uncles.length > 0) withUncles++;
      if (n >= 36) assert.equal(count, "0x0", `post-merge block ${n}`);
    }
    // The hive chain gives blocks 3, 4, 6, 7, … one uncle each before the merge.
    assert.equal(await result(chain.call, "eth_getUncleCountByBlockNumber", ["0x3"]), "0x1");
    assert.equal(await result(chain.call, "eth_getUncleCountByBlockNumber", ["0x5"]), "0x0");
    assert.equal(withUncles, 18);
  });

  test("tags, pending and unknown blocks", async () => {
    const count = (call: typeof chain.call, params: unknown[]) =>
      result(call, "eth_getUncleCountByBlockNumber", params);
    assert.equal(await count(chain.call, ["latest"]), "0x0");
    assert.equal(await count(chain.call, ["earliest"]), "0x0");
    assert.equal(await count(chain.call, ["pending"]), "0x0");
    assert.equal(await count(chain.call, ["0x37"]), null, "past the head");
    // A pre-merge head with an uncle; a pre-confirmed block never has one.
    assert.equal(await count(chain.at({ head: 4 }), ["latest"]), "0x1");
    assert.equal(await count(chain.at({ head: 53, pending: true }), ["pending"]), "0x0");
    assert.equal(await count(chain.at({ head: 53, pending: true }), ["0x36"]), null);
  });

  test("bad parameters get geth's errors", async () => {
    const cases: Array<[unknown[], string]> = [
      [[], "missing value for required argument 0"],
      [["0x"], 'invalid argument 0: hex string "0x"'],
      [[3], "invalid argument 0: hex string without 0x prefix"],
      [[{ blockNumber: "0x3" }], "invalid argument 0: hex string without 0x prefix"],
    ];
    for (const [params, message] of cases) {
      const reply = await chain.call("eth_getUncleCountByBlockNumber", params);
      assert.deepEqual(reply.error, { code: -32602, message }, JSON.stringify(params));
    }
  });
});
