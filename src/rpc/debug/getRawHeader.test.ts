import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { RLP } from "@ethereumjs/rlp";
import { type FixtureChain, fixtureChain, result } from "../../../test/utils/fixtureChain.ts";
import { keccak256 } from "../../util/crypto.ts";
import { bytesToBigInt, bytesToHex, hexToBytes } from "../../util/hex.ts";

let chain: FixtureChain;
const hex = (n: number) => `0x${n.toString(16)}`;
const ZERO32 = `0x${"00".repeat(32)}`;
const UNKNOWN = `0x${"ab".repeat(32)}`;

describe("debug_getRawHeader", () => {
  before(async () => {
    chain = await fixtureChain("getRawHeader");
  });
  after(async () => {
    await chain?.close();
  });

  test("every header's RLP hashes to its block hash, by number, hash and EIP-1898 object", async () => {
    for (let n = 0; n <= 54; n++) {
      const block = (await result(chain.call, "eth_getBlockByNumber", [hex(n), false])) as {
        hash: string;
        stateRoot: string;
        number: string;
      };
      const raw = (await result(chain.call, "debug_getRawHeader", [hex(n)])) as string;
      assert.equal(bytesToHex(keccak256(hexToBytes(raw))), block.hash, `block ${n}`);
      const fields = RLP.decode(hexToBytes(raw)) as Uint8Array[];
      assert.equal(bytesToHex(fields[3]!), block.stateRoot);
      assert.equal(bytesToBigInt(fields[8]!), BigInt(block.number));
      for (const selector of [block.hash, { blockHash: block.hash }, { blockNumber: hex(n) }]) {
        assert.equal(await result(chain.call, "debug_getRawHeader", [selector]), raw);
      }
    }
  });

  test("tags, pending and unknown blocks", async () => {
    const raw = (call: typeof chain.call, params: unknown[]) =>
      result(call, "debug_getRawHeader", params);
    const head = await raw(chain.call, ["0x36"]);
    assert.equal(await raw(chain.call, ["latest"]), head);
    assert.equal(await raw(chain.call, ["finalized"]), head);
    assert.equal(await raw(chain.call, ["pending"]), head, "no sequencer: pending is latest");
    assert.equal(await raw(chain.call, ["earliest"]), await raw(chain.call, ["0x0"]));
    // geth: an unknown number is an empty result, an unknown hash an error naming its bytes.
    assert.equal(await raw(chain.call, ["0x37"]), "0x");
    const bytes = `[${"171 ".repeat(31)}171]`;
    for (const selector of [UNKNOWN, { blockHash: UNKNOWN, requireCanonical: true }]) {
      assert.deepEqual((await chain.call("debug_getRawHeader", [selector])).error, {
        code: -32000,
        message: `header #${bytes} not found`,
      });
    }
    assert.equal(
      (await chain.call("debug_getRawHeader", [ZERO32])).error?.message,
      `header #[${"0 ".repeat(31)}0] not found`,
    );

    // Block 54 pre-confirmed over head 53: its header with the state root not yet known.
    const preconfirmed = chain.at({ head: 53, pending: true });
    const pending = RLP.decode(hexToBytes((await raw(preconfirmed, ["pending"])) as string));
    const sealed = RLP.decode(hexToBytes(head as string)) as Uint8Array[];
    assert.deepEqual(pending, sealed.with(3, hexToBytes(ZERO32)));
    assert.equal(await raw(preconfirmed, ["latest"]), await raw(chain.call, ["0x35"]));
    assert.equal(await raw(preconfirmed, ["0x36"]), "0x");
  });

  test("bad parameters get geth's errors", async () => {
    const cases: Array<[unknown[], string]> = [
      [[], "missing value for required argument 0"],
      [["2"], "invalid argument 0: hex string without 0x prefix"],
      [[null], "invalid argument 0: must specify either BlockHash or BlockNumber"],
      [
        [{ blockHash: UNKNOWN, blockNumber: "0x1" }],
        "invalid argument 0: cannot specify both BlockHash and BlockNumber, choose one or the other",
      ],
    ];
    for (const [params, message] of cases) {
      const reply = await chain.call("debug_getRawHeader", params);
      assert.deepEqual(reply.error, { code: -32602, message }, JSON.stringify(params));
    }
  });
});
