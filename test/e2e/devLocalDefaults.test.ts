// `flashnode dev` has a local node's defaults, as anvil does: any origin may call it from a
// browser, and clients on this machine are not rate-limited; --cors and --rate-limit-loopback
// narrow them. Through the CLI, as users start it. (serve's defaults: src/edge/edgeServer.test.ts.)
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { type CliNode, postRpc, startCliNode } from "../utils/cliNode.ts";
import { tempDatadir } from "../utils/fixtures.ts";

const DAPP = "http://localhost:3000";
const started: CliNode[] = [];
after(async () => {
  for (const n of started) await n.stop();
});

async function dev(extra: string[]): Promise<CliNode> {
  const node = await startCliNode([
    "dev",
    ...["--datadir", tempDatadir("local-defaults"), "--port", "0", "--rpc-workers", "1"],
    ...["--log-level", "warn", ...extra],
  ]);
  started.push(node);
  return node;
}

/** 450 calls in one batch: over the public tier's default bucket (200/s, burst 400). */
const BIG_BATCH = Array.from({ length: 450 }, (_, i) => ({
  jsonrpc: "2.0",
  id: i,
  method: "eth_chainId",
  params: [],
}));

describe("dev's defaults", () => {
  test("a browser dapp on any origin gets CORS answers (preflight and POST)", async () => {
    const node = await dev([]);
    const pre = await fetch(node.url, {
      method: "OPTIONS",
      headers: {
        origin: DAPP,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get("access-control-allow-origin"), "*");
    assert.equal(pre.headers.get("access-control-allow-headers"), "content-type");
    const r = await postRpc(
      node.url,
      { jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] },
      { origin: DAPP },
    );
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("access-control-allow-origin"), "*");
    // A loopback client's big batch is served whole: no 429 on a local node.
    const batch = await postRpc(node.url, BIG_BATCH);
    assert.equal(batch.status, 200);
    assert.equal((batch.json as unknown[]).length, 450);
    const again = await postRpc(node.url, BIG_BATCH);
    assert.equal(again.status, 200, "and again: the bucket is not drawn on at all");
  });

  test("on this machine the dedicated key is local-dev-key, as the README's examples use", async () => {
    const node = await dev([]);
    assert.equal(node.dedicatedUrl, `${node.url}rpc/local-dev-key`);
    assert.match(
      node.output(),
      /rpc\/local-dev-key {3}\(dev's key on this machine; --api-key sets another\)/,
    );
    const call = { jsonrpc: "2.0", id: 1, method: "eth_getBlockReceipts", params: ["pending"] };
    const receipts = await postRpc(node.dedicatedUrl, call);
    assert.equal(receipts.status, 200);
    assert.ok(Array.isArray((receipts.json as { result: unknown }).result));
    assert.equal((await postRpc(node.url, call)).status, 403, "the public tier still refuses it");
    const given = await dev(["--api-key", "my-own-key-01"]);
    assert.equal(given.dedicatedUrl, `${given.url}rpc/my-own-key-01`);
    assert.equal((await postRpc(`${given.url}rpc/local-dev-key`, call)).status, 401);
  });

  test("--cors narrows the origins; --rate-limit-loopback limits this machine too", async () => {
    const node = await dev(["--cors", DAPP, "--rate-limit-loopback"]);
    const call = { jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] };
    const mine = await postRpc(node.url, call, { origin: DAPP });
    assert.equal(mine.headers.get("access-control-allow-origin"), DAPP);
    const other = await postRpc(node.url, call, { origin: "https://elsewhere.example" });
    assert.equal(other.status, 200);
    assert.equal(other.headers.get("access-control-allow-origin"), null);
    const batch = await postRpc(node.url, BIG_BATCH);
    assert.equal(batch.status, 429);
    assert.deepEqual(batch.json, {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32016, message: "over rate limit" },
    });
  });
});
