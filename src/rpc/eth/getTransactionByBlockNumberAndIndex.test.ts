import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type FixtureChain, fixtureChain, result } from "../../../test/utils/fixtureChain.ts";

let chain: FixtureChain;
const hex = (n: number) => `0x${n.toString(16)}`;
type Tx = Record<string, unknown> & { hash: string; blockHash: string; type: string };

describe("eth_getTransactionByBlockNumberAndIndex", () => {
  before(async () => {
    chain = await fixtureChain("txByNumberAndIndex");
  });
  after(async () => {
    await chain?.close();
  });

  test("every transaction equals its full-block entry and eth_getTransactionByHash", async () => {
    const types = new Set<string>();
    for (let n = 0; n <= 54; n++) {
      const block = (await result(chain.call, "eth_getBlockByNumber", [hex(n), true])) as {
        transactions: Tx[];
      };
      for (const [i, tx] of block.transactions.entries()) {
        types.add(tx.type);
        const byIndex = await result(chain.call, "eth_getTransactionByBlockNumberAndIndex", [
          hex(n),
          hex(i),
        ]);
        assert.deepEqual(byIndex, tx, `block ${n} index ${i}`);
        assert.deepEqual(byIndex, await result(chain.call, "eth_getTransactionByHash", [tx.hash]));
      }
      assert.equal(
        await result(chain.call, "eth_getTransactionByBlockNumberAndIndex", [
          hex(n),
          hex(block.transactions.length),
        ]),
        null,
        "one past the last index",
      );
    }
    assert.deepEqual([...types].sort(), ["0x0", "0x1", "0x2", "0x3", "0x4"]);
  });

  test("tags, pending and unknown blocks", async () => {
    const at = (params: unknown[]) =>
      result(chain.call, "eth_getTransactionByBlockNumberAndIndex", params);
    const last = (await at(["0x36", "0x3"])) as Tx;
    assert.deepEqual(await at(["latest", "0x3"]), last);
    assert.deepEqual(await at(["pending", "0x3"]), last, "no sequencer: pending is latest");
    assert.equal(await at(["earliest", "0x0"]), null, "the genesis has no transactions");
    assert.equal(await at(["0x37", "0x0"]), null, "past the head");
    assert.equal(await at(["0x36", "0xffffffffffffffff"]), null);

    // Block 54 pre-confirmed over head 53: the same transactions, block hash 32 zero bytes.
    const preconfirmed = chain.at({ head: 53, pending: true });
    const pendingBlock = (await result(preconfirmed, "eth_getBlockByNumber", [
      "pending",
      true,
    ])) as {
      transactions: Tx[];
    };
    for (let i = 0; i < 4; i++) {
      const sealed = (await at(["0x36", hex(i)])) as Tx;
      const pending = await result(preconfirmed, "eth_getTransactionByBlockNumberAndIndex", [
        "pending",
        hex(i),
      ]);
      assert.deepEqual(pending, { ...sealed, blockHash: `0x${"00".repeat(32)}` });
      assert.deepEqual(pending, pendingBlock.transactions[i]);
      assert.deepEqual(
        pending,
        await result(preconfirmed, "eth_getTransactionByHash", [sealed.hash]),
      );
    }
    assert.equal(
      await result(preconfirmed, "eth_getTransactionByBlockNumberAndIndex", ["pending", "0x4"]),
      null,
    );
  });

  test("bad parameters get geth's errors", async () => {
    const cases: Array<[unknown[], string]> = [
      [[], "missing value for required argument 0"],
      [["0x1"], "missing value for required argument 1"],
      [["0x01", "0x0"], "invalid argument 0: hex number with leading zero digits"],
      [
        ["0x1", "0x"],
        'invalid argument 1: json: cannot unmarshal hex string "0x" into Go value of type hexutil.Uint',
      ],
      [
        ["0x1", 0],
        "invalid argument 1: json: cannot unmarshal non-string into Go value of type hexutil.Uint",
      ],
      [
        ["0x1", "0x10000000000000000"],
        "invalid argument 1: json: cannot unmarshal hex number > 64 bits into Go value of type hexutil.Uint",
      ],
    ];
    for (const [params, message] of cases) {
      const reply = await chain.call("eth_getTransactionByBlockNumberAndIndex", params);
      assert.deepEqual(reply.error, { code: -32602, message }, JSON.stringify(params));
    }
  });
});
