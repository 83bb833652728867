import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type FixtureChain, fixtureChain, result } from "../../../test/utils/fixtureChain.ts";

let chain: FixtureChain;
const hex = (n: number) => `0x${n.toString(16)}`;
type Block = Record<string, unknown> & { hash: string; uncles: string[] };

describe("eth_getUncleByBlockHashAndIndex", () => {
  before(async () => {
    chain = await fixtureChain("uncleByHashAndIndex");
  });
  after(async () => {
    await chain?.close();
  });

  test("every uncle by block hash equals the uncle by block number", async () => {
    let seen = 0;
    for (let n = 0; n <= 54; n++) {
      const block = (await result(chain.call, "eth_getBlockByNumber", [hex(n), false])) as Block;
      for (const [i, hash] of block.uncles.entries()) {
        const uncle = (await result(chain.call, "eth_getUncleByBlockHashAndIndex", [
          block.hash,
          hex(i),
        ])) as Block;
        assert.equal(uncle.hash, hash);
        assert.deepEqual(
          uncle,
          await result(chain.call, "eth_getUncleByBlockNumberAndIndex", [hex(n), hex(i)]),
        );
        seen++;
      }
      assert.equal(
        await result(chain.call, "eth_getUncleByBlockHashAndIndex", [
          block.hash,
          hex(block.uncles.length),
        ]),
        null,
      );
    }
    assert.equal(seen, 18);
    const uncle = (await result(chain.call, "eth_getUncleByBlockHashAndIndex", [
      "0xb8a651cb280e169015aef5235a141cb2d905058d1ff9bba788b7ad2c729c9837", // block 3
      "0x0",
    ])) as Block;
    assert.equal(uncle.hash, "0xcab48fb1cd7699dde0792164545f50ed725d38080c929a7391a2f34647e68310");
  });

  test("unknown blocks are null; an uncle is not a block of its own", async () => {
    const at = (params: unknown[]) => result(chain.call, "eth_getUncleByBlockHashAndIndex", params);
    assert.equal(await at([`0x${"ab".repeat(32)}`, "0x0"]), null);
    assert.equal(await at([`0x${"00".repeat(32)}`, "0x0"]), null);
    assert.equal(
      await at(["0xcab48fb1cd7699dde0792164545f50ed725d38080c929a7391a2f34647e68310", "0x0"]),
      null,
    );
  });

  test("bad parameters get geth's errors", async () => {
    const cases: Array<[unknown[], string]> = [
      [[], "missing value for required argument 0"],
      [[`0x${"ab".repeat(32)}`], "missing value for required argument 1"],
      [
        ["pending", "0x0"],
        "invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type common.Hash",
      ],
    ];
    for (const [params, message] of cases) {
      const reply = await chain.call("eth_getUncleByBlockHashAndIndex", params);
      assert.deepEqual(reply.error, { code: -32602, message }, JSON.stringify(params));
    }
  });
});
