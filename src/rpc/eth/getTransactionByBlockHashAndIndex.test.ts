import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type FixtureChain, fixtureChain, result } from "../../../test/utils/fixtureChain.ts";

let chain: FixtureChain;
const hex = (n: number) => `0x${n.toString(16)}`;
type Tx = Record<string, unknown> & { hash: string };

describe("eth_getTransactionByBlockHashAndIndex", () => {
  before(async () => {
    chain = await fixtureChain("txByHashAndIndex");
  });
  after(async () => {
    await chain?.close();
  });

  test("every transaction by block hash equals its full-block entry", async () => {
    for (let n = 0; n <= 54; n++) {
      const block = (await result(chain.call, "eth_getBlockByNumber", [hex(n), true])) as {
        hash: string;
        transactions: Tx[];
      };
      for (const [i, tx] of block.transactions.entries()) {
        const byIndex = await result(chain.call, "eth_getTransactionByBlockHashAndIndex", [
          block.hash,
          hex(i),
        ]);
        assert.deepEqual(byIndex, tx, `block ${n} index ${i}`);
        assert.deepEqual(byIndex, await result(chain.call, "eth_getTransactionByHash", [tx.hash]));
      }
      assert.equal(
        await result(chain.call, "eth_getTransactionByBlockHashAndIndex", [
          block.hash,
          hex(block.transactions.length),
        ]),
        null,
      );
    }
  });

  test("unknown blocks are null, a pre-confirmed block's included", async () => {
    const at = (call: typeof chain.call, params: unknown[]) =>
      result(call, "eth_getTransactionByBlockHashAndIndex", params);
    assert.equal(await at(chain.call, [`0x${"ab".repeat(32)}`, "0x0"]), null);
    assert.equal(await at(chain.call, [`0x${"00".repeat(32)}`, "0x0"]), null);
    const hash54 = (
      (await result(chain.call, "eth_getBlockByNumber", ["0x36", false])) as {
        hash: string;
      }
    ).hash;
    assert.equal(((await at(chain.call, [hash54, "0x0"])) as Tx).blockHash, hash54);
    // Before its seal, block 54 has no hash: the pre-confirmed block is not found by one.
    assert.equal(await at(chain.at({ head: 53, pending: true }), [hash54, "0x0"]), null);
  });

  test("bad parameters get geth's errors", async () => {
    const hash = `0x${"ab".repeat(32)}`;
    const cases: Array<[unknown[], string]> = [
      [[], "missing value for required argument 0"],
      [[hash], "missing value for required argument 1"],
      [
        ["0x1", "0x0"],
        "invalid argument 0: json: cannot unmarshal hex string of odd length into Go value of type common.Hash",
      ],
      [
        [hash, "0x00"],
        "invalid argument 1: json: cannot unmarshal hex number with leading zero digits into Go value of type hexutil.Uint",
      ],
      [[hash, "0x0", "0x0"], "too many arguments, want at most 2"],
    ];
    for (const [params, message] of cases) {
      const reply = await chain.call("eth_getTransactionByBlockHashAndIndex", params);
      assert.deepEqual(reply.error, { code: -32602, message }, JSON.stringify(params));
    }
  });
});
