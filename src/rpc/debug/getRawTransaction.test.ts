import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type FixtureChain, fixtureChain, result } from "../../../test/utils/fixtureChain.ts";
import { keccak256 } from "../../util/crypto.ts";
import { bytesToHex, hexToBytes } from "../../util/hex.ts";

let chain: FixtureChain;
const hex = (n: number) => `0x${n.toString(16)}`;
type Tx = { hash: string; type: string };

describe("debug_getRawTransaction", () => {
  before(async () => {
    chain = await fixtureChain("getRawTransaction");
  });
  after(async () => {
    await chain?.close();
  });

  test("every transaction's binary encoding hashes to its hash", async () => {
    const types = new Set<string>();
    for (let n = 1; n <= 54; n++) {
      const block = (await result(chain.call, "eth_getBlockByNumber", [hex(n), true])) as {
        transactions: Tx[];
      };
      for (const tx of block.transactions) {
        const raw = hexToBytes(
          (await result(chain.call, "debug_getRawTransaction", [tx.hash])) as string,
        );
        assert.equal(bytesToHex(keccak256(raw)), tx.hash);
        // Typed: the type byte first (EIP-2718); legacy: an RLP list.
        if (tx.type === "0x0") assert.ok(raw[0]! >= 0xc0);
        else assert.equal(hex(raw[0]!), tx.type);
        types.add(tx.type);
      }
    }
    assert.deepEqual([...types].sort(), ["0x0", "0x1", "0x2", "0x3", "0x4"]);
  });

  test("pre-confirmed transactions are found as eth_getTransactionByHash finds them", async () => {
    const block54 = (await result(chain.call, "eth_getBlockByNumber", ["0x36", false])) as {
      transactions: string[];
    };
    const preconfirmed = chain.at({ head: 53, pending: true });
    const sealedOnly = chain.at({ head: 53, pending: true, preconfirmedReceipts: false });
    for (const hash of block54.transactions) {
      const sealed = await result(chain.call, "debug_getRawTransaction", [hash]);
      assert.equal(await result(preconfirmed, "debug_getRawTransaction", [hash]), sealed);
      assert.equal(await result(sealedOnly, "debug_getRawTransaction", [hash]), "0x");
      assert.equal(await result(sealedOnly, "eth_getTransactionByHash", [hash]), null);
    }
  });

  test("an unknown transaction is 0x, as geth answers", async () => {
    assert.equal(
      await result(chain.call, "debug_getRawTransaction", [`0x${"ab".repeat(32)}`]),
      "0x",
    );
  });

  test("bad parameters get geth's errors", async () => {
    const cases: Array<[unknown[], string]> = [
      [[], "missing value for required argument 0"],
      [
        ["1000000000000000000000000000000000000000000000000000000000000001"],
        "invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type common.Hash",
      ],
      [["0x"], "invalid argument 0: hex string has length 0, want 64 for common.Hash"],
    ];
    for (const [params, message] of cases) {
      const reply = await chain.call("debug_getRawTransaction", params);
      assert.deepEqual(reply.error, { code: -32602, message }, JSON.stringify(params));
    }
  });
});
