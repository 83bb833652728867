import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { fixtureServer } from "../../../test/utils/archiveServer.ts";
import { rpc } from "../../../test/utils/fixtures.ts";
import type { RunningNode as RunningServer } from "../../node/plan.ts";

// 0x7dcd… is a contract whose slot 0 the fixture chain rewrites in many blocks.
const CONTRACT = "0x7dcd17433742f4c0ca53122ab541d0ba67fc27df";
const ZERO = `0x${"0".repeat(64)}`;
let server: RunningServer;

async function storageAt(
  params: unknown[],
): Promise<{ result?: string; error?: { code: number; message: string } }> {
  return (await rpc(server.dedicatedUrl, {
    jsonrpc: "2.0",
    id: 7,
    method: "eth_getStorageAt",
    params,
  })) as {
    result?: string;
    error?: { code: number; message: string };
  };
}

async function value(params: unknown[]): Promise<string> {
  const r = await storageAt(params);
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  return r.result!;
}

describe("eth_getStorageAt", () => {
  before(async () => {
    server = await fixtureServer("getStorageAt");
  });
  after(async () => {
    await server.close();
  });

  test("returns a 32-byte word; history differs from latest", async () => {
    const latest = await value([CONTRACT, "0x0", "latest"]);
    assert.match(latest, /^0x[0-9a-f]{64}$/);
    assert.notEqual(latest, ZERO);
    assert.equal(await value([CONTRACT, "0x0"]), latest, "block defaults to latest");
    assert.equal(await value([CONTRACT, "0x0", null]), latest, "null block is latest");
    const history = new Set<string>();
    for (let n = 0; n <= 54; n++)
      history.add(await value([CONTRACT, "0x0", `0x${n.toString(16)}`]));
    assert.ok(history.size > 5, `slot 0 had ${history.size} distinct values over the chain`);
    assert.equal(await value([CONTRACT, "0x0", "0x1"]), ZERO, "before the first write");
    assert.equal(await value([CONTRACT, "0x0", "earliest"]), await value([CONTRACT, "0x0", "0x0"]));
    assert.equal(
      await value([CONTRACT, "0x0", "pending"]),
      latest,
      "no sequencer: pending is latest",
    );
    assert.equal(await value([CONTRACT, "0x0", "safe"]), latest);
    assert.equal(await value([CONTRACT, "0x0", "finalized"]), latest);
  });

  test("accepts geth's lenient key forms", async () => {
    const latest = await value([CONTRACT, "0x0", "latest"]);
    for (const key of ["0x", "", "0", "0x00", `0x${"0".repeat(64)}`, "0X0"]) {
      assert.equal(await value([CONTRACT, key, "latest"]), latest, `key ${JSON.stringify(key)}`);
    }
    assert.equal(
      await value([CONTRACT, null, "latest"]),
      latest,
      "null key decodes as slot 0 (geth quirk)",
    );
  });

  test("unknown accounts and slots read as zero", async () => {
    assert.equal(
      await value(["0xc1cadaffffffffffffffffffffffffffffffffff", "0x0", "latest"]),
      ZERO,
    );
    assert.equal(await value([CONTRACT, "0xdeadbeef", "latest"]), ZERO);
  });

  test("block hashes and EIP-1898 objects select the same state as numbers", async () => {
    const block = (await rpc(server.dedicatedUrl, {
      jsonrpc: "2.0",
      id: 1,
      method: "eth_getBlockByNumber",
      params: ["0x8", false],
    })) as { result: { hash: string } };
    const byNumber = await value([CONTRACT, "0x0", "0x8"]);
    assert.equal(await value([CONTRACT, "0x0", block.result.hash]), byNumber);
    assert.equal(await value([CONTRACT, "0x0", { blockHash: block.result.hash }]), byNumber);
    assert.equal(
      await value([CONTRACT, "0x0", { blockHash: block.result.hash, requireCanonical: true }]),
      byNumber,
    );
    assert.equal(await value([CONTRACT, "0x0", { blockNumber: "0x8" }]), byNumber);
  });

  test("errors are geth's, code and message", async () => {
    const cases: Array<[unknown[], number, string]> = [
      [[CONTRACT, "0x0", "0x37"], -32000, "header not found"],
      [[CONTRACT, "0x0", `0x${"de".repeat(32)}`], -32000, "header for hash not found"],
      [[CONTRACT, "0xzz", "0x37"], -32000, "header not found"],
      [
        [CONTRACT, `0x${"0".repeat(65)}`, "latest"],
        -32602,
        `storage key too long (want at most 32 bytes): "0x${"0".repeat(65)}"`,
      ],
      [[CONTRACT, "0xzz", "latest"], -32602, 'invalid hex in storage key: "0xzz"'],
      [
        [CONTRACT, 1, "latest"],
        -32602,
        "invalid argument 1: json: cannot unmarshal number into Go value of type string",
      ],
      [
        [CONTRACT, "0x0", "0x01"],
        -32602,
        "invalid argument 2: hex number with leading zero digits",
      ],
      [[CONTRACT, "0x0", "LATEST"], -32602, "invalid argument 2: hex string without 0x prefix"],
      [
        [CONTRACT, "0x0", { blockNumber: "0x1", blockHash: `0x${"00".repeat(32)}` }],
        -32602,
        "invalid argument 2: cannot specify both BlockHash and BlockNumber, choose one or the other",
      ],
      [
        ["0x1234", "0x0", "latest"],
        -32602,
        "invalid argument 0: hex string has length 4, want 40 for common.Address",
      ],
      [[CONTRACT], -32602, "missing value for required argument 1"],
      [[CONTRACT, "0x0", "latest", 1], -32602, "too many arguments, want at most 3"],
    ];
    for (const [params, code, message] of cases) {
      const r = await storageAt(params);
      assert.deepEqual(r.error, { code, message }, JSON.stringify(params));
    }
  });
});
