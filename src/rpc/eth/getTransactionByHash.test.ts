import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { fixtureServer } from "../../../test/utils/archiveServer.ts";
import { call } from "../../../test/utils/fixtures.ts";
import type { RunningNode as RunningServer } from "../../node/plan.ts";

let server: RunningServer;

describe("eth_getTransactionByHash and web3_clientVersion", () => {
  before(async () => {
    server = await fixtureServer("getTransactionByHash");
  });
  after(async () => {
    await server.close();
  });

  test("every transaction equals its entry in the full block, for every type", async () => {
    const types = new Set<string>();
    for (let n = 1; n <= 54; n++) {
      const block = (await call(server.dedicatedUrl, "eth_getBlockByNumber", [
        `0x${n.toString(16)}`,
        true,
      ])) as {
        transactions: Array<{ hash: string; type: string; from: string }>;
      };
      for (const tx of block.transactions) {
        types.add(tx.type);
        assert.deepEqual(
          await call(server.dedicatedUrl, "eth_getTransactionByHash", [tx.hash]),
          tx,
        );
        const receipt = (await call(server.dedicatedUrl, "eth_getTransactionReceipt", [
          tx.hash,
        ])) as {
          from: string;
        };
        assert.equal(tx.from, receipt.from);
      }
    }
    assert.deepEqual(
      [...types].sort(),
      ["0x0", "0x1", "0x2", "0x3", "0x4"],
      "all five transaction types seen",
    );
    assert.equal(
      await call(server.dedicatedUrl, "eth_getTransactionByHash", [`0x${"00".repeat(32)}`]),
      null,
    );
  });

  test("client version names the node", async () => {
    assert.match(
      (await call(server.dedicatedUrl, "web3_clientVersion")) as string,
      /^flashnode\/v\d+\.\d+\.\d+\/linux-/,
    );
  });
});
