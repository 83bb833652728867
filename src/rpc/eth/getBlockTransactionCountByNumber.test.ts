import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type FixtureChain, fixtureChain, result } from "../../../test/utils/fixtureChain.ts";

let chain: FixtureChain;
const hex = (n: number) => `0x${n.toString(16)}`;

describe("eth_getBlockTransactionCountByNumber", () => {
  before(async () => {
    chain = await fixtureChain("txCountByNumber");
  });
  after(async () => {
    await chain?.close();
  });

  test("every block's count is the length of its transaction list", async () => {
    for (let n = 0; n <= 54; n++) {
      const block = (await result(chain.call, "eth_getBlockByNumber", [hex(n), false])) as {
        transactions: string[];
      };
      assert.equal(
        await result(chain.call, "eth_getBlockTransactionCountByNumber", [hex(n)]),
        hex(block.transactions.length),
        `block ${n}`,
      );
    }
    // Known values: the genesis is empty, block 1 holds 4 and block 2 holds 59.
    assert.equal(await result(chain.call, "eth_getBlockTransactionCountByNumber", ["0x0"]), "0x0");
    assert.equal(await result(chain.call, "eth_getBlockTransactionCountByNumber", ["0x2"]), "0x3b");
  });

  test("tags, pending and unknown blocks", async () => {
    const count = (params: unknown[]) =>
      result(chain.call, "eth_getBlockTransactionCountByNumber", params);
    assert.equal(await count(["latest"]), "0x4"); // block 54
    assert.equal(await count(["earliest"]), "0x0");
    assert.equal(await count(["finalized"]), "0x4");
    assert.equal(await count(["pending"]), "0x4", "no sequencer: pending is latest");
    assert.equal(await count(["0x37"]), null, "past the head");

    // Block 53 (3 transactions) is the head, block 54 (4) is pre-confirmed.
    const preconfirmed = chain.at({ head: 53, pending: true });
    assert.equal(
      await result(preconfirmed, "eth_getBlockTransactionCountByNumber", ["pending"]),
      "0x4",
    );
    assert.equal(
      await result(preconfirmed, "eth_getBlockTransactionCountByNumber", ["latest"]),
      "0x3",
    );
    assert.equal(
      await result(preconfirmed, "eth_getBlockTransactionCountByNumber", ["0x36"]),
      null,
    );
  });

  test("bad parameters get geth's errors", async () => {
    const cases: Array<[unknown[], string]> = [
      [[], "missing value for required argument 0"],
      [["0x01"], "invalid argument 0: hex number with leading zero digits"],
      [["1"], "invalid argument 0: hex string without 0x prefix"],
      [[`0x${"ab".repeat(32)}`], "invalid argument 0: hex number > 64 bits"],
      [["0x1", true], "too many arguments, want at most 1"],
    ];
    for (const [params, message] of cases) {
      const reply = await chain.call("eth_getBlockTransactionCountByNumber", params);
      assert.deepEqual(reply.error, { code: -32602, message }, JSON.stringify(params));
    }
  });
});
