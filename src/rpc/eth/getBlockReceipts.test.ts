import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, test } from "node:test";
import { fixtureServer } from "../../../test/utils/archiveServer.ts";
import { call, rpc } from "../../../test/utils/fixtures.ts";
import type { RunningNode as RunningServer } from "../../node/plan.ts";

type Receipt = Record<string, unknown> & { logs: Array<Record<string, unknown>> };
let server: RunningServer;

describe("eth_getBlockReceipts", () => {
  before(async () => {
    server = await fixtureServer("getBlockReceipts");
  });
  after(async () => {
    await server.close();
  });

  test("every selector form returns the same receipts as the per-transaction method", async () => {
    for (let n = 0; n <= 54; n++) {
      const receipts = (await call(server.dedicatedUrl, "eth_getBlockReceipts", [
        `0x${n.toString(16)}`,
      ])) as Receipt[];
      const block = (await call(server.dedicatedUrl, "eth_getBlockByNumber", [
        `0x${n.toString(16)}`,
        false,
      ])) as {
        hash: string;
        transactions: string[];
      };
      assert.equal(receipts.length, block.transactions.length, `block ${n}`);
      assert.deepEqual(
        await call(server.dedicatedUrl, "eth_getBlockReceipts", [block.hash]),
        receipts,
      );
      assert.deepEqual(
        await call(server.dedicatedUrl, "eth_getBlockReceipts", [{ blockHash: block.hash }]),
        receipts,
      );
      assert.deepEqual(
        await call(server.dedicatedUrl, "eth_getBlockReceipts", [
          { blockNumber: `0x${n.toString(16)}` },
        ]),
        receipts,
      );
      let logIndex = 0;
      for (const [i, r] of receipts.entries()) {
        assert.deepEqual(
          await call(server.dedicatedUrl, "eth_getTransactionReceipt", [block.transactions[i]]),
          r,
        );
        assert.equal(r.blockHash, block.hash);
        assert.equal(r.transactionIndex, `0x${i.toString(16)}`);
        for (const log of r.logs) assert.equal(log.logIndex, `0x${(logIndex++).toString(16)}`);
        if (n < 9) assert.ok("root" in r && !("status" in r), "pre-Byzantium receipts carry root");
        else assert.ok("status" in r && !("root" in r), "post-Byzantium receipts carry status");
        assert.equal("blobGasUsed" in r, r.type === "0x3");
      }
    }
  });

  test("tags, empty blocks and unknown blocks", async () => {
    const latest = await call(server.dedicatedUrl, "eth_getBlockReceipts", ["latest"]);
    assert.deepEqual(await call(server.dedicatedUrl, "eth_getBlockReceipts", ["0x36"]), latest);
    assert.deepEqual(await call(server.dedicatedUrl, "eth_getBlockReceipts", ["pending"]), latest);
    assert.deepEqual(
      await call(server.dedicatedUrl, "eth_getBlockReceipts", ["finalized"]),
      latest,
    );
    assert.deepEqual(await call(server.dedicatedUrl, "eth_getBlockReceipts", ["earliest"]), []);
    assert.equal(await call(server.dedicatedUrl, "eth_getBlockReceipts", ["0x37"]), null);
    assert.equal(
      await call(server.dedicatedUrl, "eth_getBlockReceipts", [`0x${"ab".repeat(32)}`]),
      null,
    );
  });

  test("a cached block's bytes answer alike over both HTTP paths, alone and in a batch", async () => {
    // Block 0x2 carries receipts; the second request of each kind is answered from the cache.
    const body = '{"jsonrpc":"2.0","id":5,"method":"eth_getBlockReceipts","params":["0x2"]}';
    const expected = await rpc(server.dedicatedUrl, JSON.parse(body));
    assert.ok(Array.isArray((expected as { result: unknown[] }).result));
    const url = new URL(server.dedicatedUrl);
    // node:http serves what the fast path hands over, such as a chunked request body.
    const chunked = () =>
      new Promise<unknown>((resolve, reject) => {
        const req = request(
          url,
          { method: "POST", headers: { "content-type": "application/json" } },
          (res) => {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (c: string) => {
              text += c;
            });
            res.on("end", () => {
              assert.equal(Number(res.headers["content-length"]), Buffer.byteLength(text));
              resolve(JSON.parse(text));
            });
          },
        );
        req.on("error", reject);
        req.write(body.slice(0, 10));
        req.end(body.slice(10));
      });
    for (let i = 0; i < 2; i++) {
      assert.deepEqual(await rpc(server.dedicatedUrl, JSON.parse(body)), expected, "fast path");
      assert.deepEqual(await chunked(), expected, "node:http");
      const batch = (await rpc(server.dedicatedUrl, [
        JSON.parse(body),
        { jsonrpc: "2.0", id: 6, method: "eth_blockNumber", params: [] },
      ])) as unknown[];
      assert.deepEqual(batch[0], expected, "in a batch");
    }
  });

  test("bad selectors get geth's errors", async () => {
    const cases: Array<[unknown[], string]> = [
      [[], "missing value for required argument 0"],
      [["0x01"], "invalid argument 0: hex number with leading zero digits"],
      [[1], "invalid argument 0: json: cannot unmarshal number into Go value of type string"],
      [["Latest"], "invalid argument 0: hex string without 0x prefix"],
      [[{}], "invalid argument 0: must specify either BlockHash or BlockNumber"],
    ];
    for (const [params, message] of cases) {
      const r = (await rpc(server.dedicatedUrl, {
        jsonrpc: "2.0",
        id: 1,
        method: "eth_getBlockReceipts",
        params,
      })) as {
        error: unknown;
      };
      assert.deepEqual(r.error, { code: -32602, message }, JSON.stringify(params));
    }
  });
});
