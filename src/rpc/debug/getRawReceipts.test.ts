import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { type FixtureChain, fixtureChain, result } from "../../../test/utils/fixtureChain.ts";
import { bytesToHex, hexToBytes } from "../../util/hex.ts";

let chain: FixtureChain;
const hex = (n: number) => `0x${n.toString(16)}`;
const UNKNOWN = `0x${"ab".repeat(32)}`;
type Nested = Uint8Array | Nested[];
type Block = { hash: string; receiptsRoot: string };
type Receipt = {
  type: string;
  status?: string;
  root?: string;
  cumulativeGasUsed: string;
  logsBloom: string;
  logs: Array<{ address: string; topics: string[]; data: string }>;
};

/** The receipts trie root over the encodings, as a block header commits to it. */
async function receiptsRoot(raws: readonly string[]): Promise<string> {
  const trie = new MerklePatriciaTrie();
  for (const [i, raw] of raws.entries()) await trie.put(RLP.encode(i), hexToBytes(raw));
  return bytesToHex(trie.root());
}

describe("debug_getRawReceipts", () => {
  before(async () => {
    chain = await fixtureChain("getRawReceipts");
  });
  after(async () => {
    await chain?.close();
  });

  test("every block's receipts root is the trie of the encodings, which hold its receipts", async () => {
    const types = new Set<number>();
    for (let n = 0; n <= 54; n++) {
      const block = (await result(chain.call, "eth_getBlockByNumber", [hex(n), false])) as Block;
      const raws = (await result(chain.call, "debug_getRawReceipts", [hex(n)])) as string[];
      assert.equal(await receiptsRoot(raws), block.receiptsRoot, `block ${n}`);
      const receipts = (await result(chain.call, "eth_getBlockReceipts", [hex(n)])) as Receipt[];
      assert.equal(raws.length, receipts.length);
      for (const [i, raw] of raws.entries()) {
        const r = receipts[i]!;
        const bytes = hexToBytes(raw);
        const type = Number(r.type);
        types.add(type);
        // Typed receipts are the type byte followed by the RLP list; legacy ones the list alone.
        assert.equal(bytes[0]! >= 0xc0, type === 0);
        const [outcome, cumulative, bloom, logs] = RLP.decode(
          type === 0 ? bytes : bytes.subarray(1),
        ) as Nested[];
        const expectedOutcome = r.root ?? (r.status === "0x1" ? "0x01" : "0x");
        assert.equal(bytesToHex(outcome as Uint8Array), expectedOutcome);
        assert.equal(BigInt(bytesToHex(cumulative as Uint8Array)), BigInt(r.cumulativeGasUsed));
        assert.equal(bytesToHex(bloom as Uint8Array), r.logsBloom);
        assert.deepEqual(
          (logs as Uint8Array[][]).map(([address, topics, data]) => ({
            address: bytesToHex(address as Uint8Array),
            topics: (topics as unknown as Uint8Array[]).map(bytesToHex),
            data: bytesToHex(data as Uint8Array),
          })),
          r.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data })),
        );
      }
      for (const selector of [block.hash, { blockHash: block.hash }, { blockNumber: hex(n) }]) {
        assert.deepEqual(await result(chain.call, "debug_getRawReceipts", [selector]), raws);
      }
    }
    assert.deepEqual([...types].sort(), [0, 1, 2, 3, 4]);
  });

  test("tags, pending and unknown blocks", async () => {
    const raws = (call: typeof chain.call, params: unknown[]) =>
      result(call, "debug_getRawReceipts", params);
    const head = await raws(chain.call, ["0x36"]);
    assert.deepEqual(await raws(chain.call, ["latest"]), head);
    assert.deepEqual(await raws(chain.call, ["pending"]), head, "no sequencer: pending is latest");
    assert.deepEqual(await raws(chain.call, ["earliest"]), []);
    // geth: an unknown number is null, an unknown hash an empty list.
    assert.equal(await raws(chain.call, ["0x37"]), null);
    assert.deepEqual(await raws(chain.call, [UNKNOWN]), []);
    assert.deepEqual(await raws(chain.call, [{ blockHash: UNKNOWN, requireCanonical: true }]), []);

    // Block 54 pre-confirmed over head 53: the same receipts, before the block has a hash.
    const preconfirmed = chain.at({ head: 53, pending: true });
    const pending = (await raws(preconfirmed, ["pending"])) as string[];
    assert.deepEqual(pending, head);
    assert.equal(pending.length, 4);
    assert.deepEqual(await raws(preconfirmed, ["latest"]), await raws(chain.call, ["0x35"]));
    assert.equal(await raws(preconfirmed, ["0x36"]), null);
  });

  test("bad parameters get geth's errors", async () => {
    const cases: Array<[unknown[], string]> = [
      [[], "missing value for required argument 0"],
      [["2"], "invalid argument 0: hex string without 0x prefix"],
      [[2], "invalid argument 0: json: cannot unmarshal number into Go value of type string"],
      [[{}], "invalid argument 0: must specify either BlockHash or BlockNumber"],
    ];
    for (const [params, message] of cases) {
      const reply = await chain.call("debug_getRawReceipts", params);
      assert.deepEqual(reply.error, { code: -32602, message }, JSON.stringify(params));
    }
  });
});
