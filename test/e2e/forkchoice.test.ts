// `safe` and `finalized` over HTTP: after import, from the forkchoice given or else the head;
// in dev, trailing latest by the configured depths.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { startTestDevNode } from "../utils/devChain.ts";
import { fixtureImportArgs, rpc, runCli, tempDatadir } from "../utils/fixtures.ts";
import { startArchiveServer } from "../utils/nodes.ts";
import { silentLogger, testFrontendOptions } from "../utils/options.ts";

// A contract whose slot 0 the fixture chain rewrites in many blocks.
const CONTRACT = "0x7dcd17433742f4c0ca53122ab541d0ba67fc27df";

type Answer = { result?: unknown; error?: { code: number; message: string } };

async function call(url: string, method: string, params: unknown[]): Promise<Answer> {
  return (await rpc(url, { jsonrpc: "2.0", id: 1, method, params })) as Answer;
}

async function blockOf(url: string, tag: string): Promise<{ number: string; hash: string }> {
  const r = await call(url, "eth_getBlockByNumber", [tag, false]);
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  return r.result as { number: string; hash: string };
}

async function serve<T>(datadir: string, fn: (url: string) => Promise<T>): Promise<T> {
  const server = await startArchiveServer({
    datadir,
    frontend: testFrontendOptions(),
    logger: silentLogger,
  });
  try {
    return await fn(server.dedicatedUrl);
  } finally {
    await server.close();
  }
}

describe("safe and finalized", () => {
  test("import: the head without a forkchoice, the given blocks with one", async () => {
    const datadir = tempDatadir("forkchoice");
    const plain = runCli(fixtureImportArgs(datadir, null));
    assert.equal(plain.status, 0, plain.stderr);
    const hashes = await serve(datadir, async (url) => {
      const latest = await blockOf(url, "latest");
      assert.equal(latest.number, "0x36");
      assert.deepEqual(await blockOf(url, "safe"), latest, "no forkchoice: safe is the head");
      assert.deepEqual(await blockOf(url, "finalized"), latest);
      return { b40: (await blockOf(url, "0x28")).hash, b30: (await blockOf(url, "0x1e")).hash };
    });

    const fcu = join(datadir, "fcu.json");
    writeFileSync(
      fcu,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "engine_forkchoiceUpdatedV3",
        params: [
          { headBlockHash: hashes.b40, safeBlockHash: hashes.b40, finalizedBlockHash: hashes.b30 },
          null,
        ],
      }),
    );
    const again = runCli(fixtureImportArgs(datadir, fcu));
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /forkchoice: safe 40, finalized 30/);

    await serve(datadir, async (url) => {
      assert.equal((await blockOf(url, "safe")).hash, hashes.b40);
      assert.equal((await blockOf(url, "finalized")).hash, hashes.b30);
      assert.equal((await blockOf(url, "latest")).number, "0x36", "the head is unchanged");
      for (const [tag, number] of [
        ["safe", "0x28"],
        ["finalized", "0x1e"],
      ]) {
        const byTag = await call(url, "eth_getStorageAt", [CONTRACT, "0x0", tag]);
        const byNumber = await call(url, "eth_getStorageAt", [CONTRACT, "0x0", number]);
        assert.equal(byTag.result, byNumber.result, `storage at ${tag} = at ${number}`);
        const receipts = await call(url, "eth_getBlockReceipts", [tag]);
        const expected = await call(url, "eth_getBlockReceipts", [number]);
        assert.deepEqual(receipts.result, expected.result, `receipts at ${tag}`);
      }
      const latestValue = await call(url, "eth_getStorageAt", [CONTRACT, "0x0", "latest"]);
      const finalizedValue = await call(url, "eth_getStorageAt", [CONTRACT, "0x0", "finalized"]);
      assert.notEqual(finalizedValue.result, latestValue.result, "a real historical read");
    });
  });

  test("dev: the tags trail latest by the configured depths", async () => {
    const node = await startTestDevNode({
      blockTimeMs: 3_600_000,
      safeDepth: 2,
      finalizedDepth: 4,
    });
    try {
      const url = node.dedicatedUrl;
      assert.equal((await blockOf(url, "safe")).number, "0x0", "saturates at genesis");
      assert.equal((await blockOf(url, "finalized")).number, "0x0");
      for (let i = 0; i < 6; i++) assert.equal((await call(url, "evm_mine", [])).result, "0x0");
      assert.equal((await blockOf(url, "latest")).number, "0x6");
      assert.equal((await blockOf(url, "safe")).number, "0x4");
      assert.equal((await blockOf(url, "finalized")).number, "0x2");
      const balance = await call(url, "eth_getBalance", [node.accounts[0]!.address, "finalized"]);
      assert.match(balance.result as string, /^0x[0-9a-f]+$/);
    } finally {
      await node.close();
    }
  });

  test("dev refuses a finalized depth below the safe depth", () => {
    const r = runCli([
      "dev",
      "--datadir",
      tempDatadir("depths"),
      "--safe-depth",
      "10",
      "--finalized-depth",
      "5",
    ]);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /--finalized-depth must be at least --safe-depth/);
  });
});
