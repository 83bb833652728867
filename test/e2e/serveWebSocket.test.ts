// `flashnode serve` has the WebSocket its banner names: JSON-RPC over WebSocket on `/` and
// `/rpc/<key>`, with the same answers as over HTTP. An archive that does not move has nothing to
// notify: eth_subscribe says so, and `/flashblocks` (no chain being built) is not found. An
// upgrade that cannot be served never gets HTTP 200 (it once got the HTTP answer to a GET).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import WebSocket from "ws";
import type { RunningNode } from "../../src/node/plan.ts";
import { fixtureServer } from "../utils/archiveServer.ts";
import { call } from "../utils/fixtures.ts";
import { TEST_API_KEY } from "../utils/options.ts";
import { within } from "../utils/within.ts";

let node: RunningNode;
before(async () => {
  node = await fixtureServer("serve-ws");
});
after(async () => {
  await node?.close();
});

/** The HTTP status an upgrade to `url` gets: 101 when it is served. */
function upgradeStatus(url: string): Promise<number> {
  const ws = new WebSocket(url);
  return within(
    new Promise<number>((resolve, reject) => {
      ws.once("open", () => {
        ws.close();
        resolve(101);
      });
      ws.once("unexpected-response", (_req, res) => {
        resolve(res.statusCode ?? 0);
        ws.terminate();
      });
      ws.once("error", reject);
    }),
    `the upgrade to ${url}`,
  );
}

/** Sends each request over one connection and returns the answers, in order. */
async function overWebSocket(url: string, requests: unknown[]): Promise<unknown[]> {
  const ws = new WebSocket(url);
  const answers: unknown[] = [];
  try {
    await within(
      new Promise<void>((resolve, reject) => {
        ws.once("error", reject);
        ws.once("open", () => resolve());
      }),
      `opening ${url}`,
    );
    for (const request of requests) {
      const answer = new Promise<unknown>((resolve) =>
        ws.once("message", (data) => resolve(JSON.parse(String(data)))),
      );
      ws.send(JSON.stringify(request));
      answers.push(await within(answer, `the answer to ${JSON.stringify(request)}`));
    }
  } finally {
    ws.close();
  }
  return answers;
}

test("JSON-RPC over WebSocket on / and /rpc/<key>, answering as HTTP does", async () => {
  const ws = node.wsUrl;
  assert.match(ws, /^ws:\/\/127\.0\.0\.1:\d+\/$/);
  const head = await call(node.url, "eth_blockNumber");
  const chainId = await call(node.url, "eth_chainId");
  for (const url of [ws, `${ws}rpc/${TEST_API_KEY}`]) {
    const [number, chain, block] = (await overWebSocket(url, [
      { jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] },
      { jsonrpc: "2.0", id: 2, method: "eth_chainId", params: [] },
      { jsonrpc: "2.0", id: 3, method: "eth_getBlockByNumber", params: ["0x1", false] },
    ])) as Array<{ id: number; result: unknown }>;
    assert.deepEqual(number, { jsonrpc: "2.0", id: 1, result: head });
    assert.deepEqual(chain, { jsonrpc: "2.0", id: 2, result: chainId });
    assert.deepEqual(block!.result, await call(node.url, "eth_getBlockByNumber", ["0x1", false]));
  }
  // The tiers are the HTTP ones: an unknown key is refused.
  assert.equal(await upgradeStatus(`${ws}rpc/not-a-key-0001`), 401);
});

test("eth_subscribe says an archive that does not move has nothing to notify", async () => {
  const [answer] = (await overWebSocket(node.wsUrl, [
    { jsonrpc: "2.0", id: 7, method: "eth_subscribe", params: ["newHeads"] },
  ])) as Array<{ id: number; error?: { code: number; message: string } }>;
  assert.equal(answer!.id, 7);
  assert.equal(answer!.error?.code, -32601);
  assert.match(answer!.error!.message, /^notifications not supported: /);
});

test("an upgrade that cannot be served is refused, never answered with 200", async () => {
  assert.equal(await upgradeStatus(node.wsUrl), 101);
  assert.equal(await upgradeStatus(`${node.wsUrl}flashblocks`), 404);
  assert.equal(await upgradeStatus(`${node.wsUrl}nowhere`), 404);
});
