import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { RLP } from "@ethereumjs/rlp";
import { type FixtureChain, fixtureChain, result } from "../../../test/utils/fixtureChain.ts";
import { keccak256 } from "../../util/crypto.ts";
import { bytesToHex, hexToBytes } from "../../util/hex.ts";

let chain: FixtureChain;
const hex = (n: number) => `0x${n.toString(16)}`;
const ZERO32 = `0x${"00".repeat(32)}`;
const UNKNOWN = `0x${"ab".repeat(32)}`;
type Nested = Uint8Array | Nested[];
type Block = { hash: string; size: string; transactions: string[]; uncles: string[] };

describe("debug_getRawBlock", () => {
  before(async () => {
    chain = await fixtureChain("getRawBlock");
  });
  after(async () => {
    await chain?.close();
  });

  test("every block's RLP holds its header, transactions, uncles and withdrawals", async () => {
    for (let n = 0; n <= 54; n++) {
      const block = (await result(chain.call, "eth_getBlockByNumber", [hex(n), false])) as Block;
      const raw = (await result(chain.call, "debug_getRawBlock", [hex(n)])) as string;
      const bytes = hexToBytes(raw);
      assert.equal(hex(bytes.length), block.size, `block ${n}: size`);
      const [header, txs, uncles, withdrawals] = RLP.decode(bytes) as Nested[];
      assert.equal(bytesToHex(keccak256(RLP.encode(header!))), block.hash);
      assert.equal(
        RLP.encode(header!).length,
        hexToBytes((await result(chain.call, "debug_getRawHeader", [hex(n)])) as string).length,
      );
      // Typed transactions are byte strings (their envelope), legacy ones lists.
      const hashes = (txs as Nested[]).map((t) =>
        bytesToHex(keccak256(t instanceof Uint8Array ? t : RLP.encode(t))),
      );
      assert.deepEqual(hashes, block.transactions);
      assert.deepEqual(
        (uncles as Nested[]).map((u) => bytesToHex(keccak256(RLP.encode(u)))),
        block.uncles,
      );
      assert.equal(withdrawals === undefined, n < 39, "withdrawals from Shanghai (block 39) on");
      for (const selector of [block.hash, { blockHash: block.hash }, { blockNumber: hex(n) }]) {
        assert.equal(await result(chain.call, "debug_getRawBlock", [selector]), raw);
      }
    }
  });

  test("tags, pending and unknown blocks", async () => {
    const raw = (call: typeof chain.call, params: unknown[]) =>
      result(call, "debug_getRawBlock", params);
    const head = (await raw(chain.call, ["0x36"])) as string;
    assert.equal(await raw(chain.call, ["latest"]), head);
    assert.equal(await raw(chain.call, ["pending"]), head, "no sequencer: pending is latest");
    assert.equal(await raw(chain.call, ["earliest"]), await raw(chain.call, ["0x0"]));
    assert.equal(await raw(chain.call, ["0x37"]), "0x", "geth: an unknown number is empty");
    assert.deepEqual((await chain.call("debug_getRawBlock", [UNKNOWN])).error, {
      code: -32000,
      message: `block #[${"171 ".repeat(31)}171] not found`,
    });

    // Block 54 pre-confirmed over head 53: the same block but for the unknown state root.
    const preconfirmed = chain.at({ head: 53, pending: true });
    const pendingRaw = hexToBytes((await raw(preconfirmed, ["pending"])) as string);
    const sealed = RLP.decode(hexToBytes(head)) as Nested[];
    const sealedHeader = sealed[0] as Uint8Array[];
    assert.deepEqual(
      RLP.decode(pendingRaw),
      sealed.with(0, sealedHeader.with(3, hexToBytes(ZERO32))),
    );
    const pendingBlock = (await result(preconfirmed, "eth_getBlockByNumber", [
      "pending",
      false,
    ])) as Block;
    assert.equal(hex(pendingRaw.length), pendingBlock.size);
    assert.equal(await raw(preconfirmed, ["0x36"]), "0x");
  });

  test("bad parameters get geth's errors", async () => {
    const cases: Array<[unknown[], string]> = [
      [[], "missing value for required argument 0"],
      [["0x3", "0x3"], "too many arguments, want at most 1"],
      [[[]], "invalid argument 0: json: cannot unmarshal array into Go value of type string"],
      [["0xfffffffffffffffff"], "invalid argument 0: hex number > 64 bits"],
    ];
    for (const [params, message] of cases) {
      const reply = await chain.call("debug_getRawBlock", params);
      assert.deepEqual(reply.error, { code: -32602, message }, JSON.stringify(params));
    }
  });
});
