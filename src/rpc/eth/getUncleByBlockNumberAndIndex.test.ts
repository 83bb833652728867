import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { RLP } from "@ethereumjs/rlp";
import { type FixtureChain, fixtureChain, result } from "../../../test/utils/fixtureChain.ts";
import { keccak256 } from "../../util/crypto.ts";
import { bytesToHex, hexToBytes } from "../../util/hex.ts";

let chain: FixtureChain;
const hex = (n: number) => `0x${n.toString(16)}`;
type Block = Record<string, unknown> & { hash: string; number: string; uncles: string[] };

describe("eth_getUncleByBlockNumberAndIndex", () => {
  before(async () => {
    chain = await fixtureChain("uncleByNumberAndIndex");
  });
  after(async () => {
    await chain?.close();
  });

  test("every uncle is its header from the block body, rendered as geth renders an uncle", async () => {
    let seen = 0;
    for (let n = 0; n <= 54; n++) {
      const block = (await result(chain.call, "eth_getBlockByNumber", [hex(n), false])) as Block;
      const raw = hexToBytes((await result(chain.call, "debug_getRawBlock", [hex(n)])) as string);
      const uncleHeaders = (RLP.decode(raw) as unknown as Uint8Array[][][])[2]!;
      for (const [i, hash] of block.uncles.entries()) {
        const uncle = (await result(chain.call, "eth_getUncleByBlockNumberAndIndex", [
          hex(n),
          hex(i),
        ])) as Block;
        const header = uncleHeaders[i]!;
        assert.equal(uncle.hash, hash);
        assert.equal(uncle.hash, bytesToHex(keccak256(RLP.encode(header))));
        // A block of the uncle header alone: [header, [], []].
        assert.equal(uncle.size, hex(RLP.encode([header, [], []]).length));
        assert.deepEqual(uncle.uncles, []);
        assert.deepEqual(
          Object.keys(uncle).sort(),
          Object.keys(block)
            .filter((k) => k !== "transactions")
            .sort(),
          "the block's keys but transactions",
        );
        assert.equal(uncle.number, bytesToHex(header[8]!).replace(/^0x0*/, "0x"));
        assert.ok(BigInt(uncle.number) < BigInt(block.number));
        assert.equal(uncle.stateRoot, bytesToHex(header[3]!));
        seen++;
      }
      assert.equal(
        await result(chain.call, "eth_getUncleByBlockNumberAndIndex", [
          hex(n),
          hex(block.uncles.length),
        ]),
        null,
      );
    }
    assert.equal(seen, 18);
    // Known values of block 3's uncle (a hive-chain uncle of block 2's height).
    const uncle = (await result(chain.call, "eth_getUncleByBlockNumberAndIndex", [
      "0x3",
      "0x0",
    ])) as Block;
    assert.equal(uncle.hash, "0xcab48fb1cd7699dde0792164545f50ed725d38080c929a7391a2f34647e68310");
    assert.equal(uncle.number, "0x2");
    assert.equal(uncle.size, "0x20d");
    assert.equal(uncle.extraData, "0x68697665636861696e20756e636c652030"); // "hivechain uncle 0"
  });

  test("tags, pending and unknown blocks", async () => {
    const at = (call: typeof chain.call, params: unknown[]) =>
      result(call, "eth_getUncleByBlockNumberAndIndex", params);
    assert.equal(await at(chain.call, ["latest", "0x0"]), null, "post-merge: no uncles");
    assert.equal(await at(chain.call, ["pending", "0x0"]), null);
    assert.equal(await at(chain.call, ["0x37", "0x0"]), null, "past the head");
    assert.equal(await at(chain.at({ head: 53, pending: true }), ["pending", "0x0"]), null);
    const head4 = (await at(chain.at({ head: 4 }), ["latest", "0x0"])) as Block;
    assert.deepEqual(head4, await at(chain.call, ["0x4", "0x0"]));
    assert.notEqual(head4, null);
  });

  test("bad parameters get geth's errors", async () => {
    const cases: Array<[unknown[], string]> = [
      [[], "missing value for required argument 0"],
      [["0x3"], "missing value for required argument 1"],
      [
        ["0x3", "1"],
        "invalid argument 1: json: cannot unmarshal hex string without 0x prefix into Go value of type hexutil.Uint",
      ],
      [
        ["0x3", null],
        "invalid argument 1: json: cannot unmarshal non-string into Go value of type hexutil.Uint",
      ],
    ];
    for (const [params, message] of cases) {
      const reply = await chain.call("eth_getUncleByBlockNumberAndIndex", params);
      assert.deepEqual(reply.error, { code: -32602, message }, JSON.stringify(params));
    }
  });
});
