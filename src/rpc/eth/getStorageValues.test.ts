import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { fixtureServer } from "../../../test/utils/archiveServer.ts";
import { call, rpc } from "../../../test/utils/fixtures.ts";
import type { RunningNode as RunningServer } from "../../node/plan.ts";

const CONTRACT = "0x7dcd17433742f4c0ca53122ab541d0ba67fc27df";
const SLOT0 = `0x${"0".repeat(64)}`;
const SLOT1 = `0x${"0".repeat(63)}1`;
let server: RunningServer;

describe("eth_getStorageValues", () => {
  before(async () => {
    server = await fixtureServer("getStorageValues");
  });
  after(async () => {
    await server.close();
  });

  test("answers each slot as eth_getStorageAt does, at any block", async () => {
    for (const block of ["latest", "0x5", "0x20", undefined]) {
      const params: unknown[] = [
        { [CONTRACT]: [SLOT0, SLOT1], "0xc1cadaffffffffffffffffffffffffffffffffff": [SLOT0] },
      ];
      if (block !== undefined) params.push(block);
      const result = (await call(server.dedicatedUrl, "eth_getStorageValues", params)) as Record<
        string,
        string[]
      >;
      const at = block ?? "latest";
      assert.deepEqual(result, {
        [CONTRACT]: [
          await call(server.dedicatedUrl, "eth_getStorageAt", [CONTRACT, SLOT0, at]),
          await call(server.dedicatedUrl, "eth_getStorageAt", [CONTRACT, SLOT1, at]),
        ],
        "0xc1cadaffffffffffffffffffffffffffffffffff": [SLOT0],
      });
    }
  });

  test("errors", async () => {
    const tooMany = Array.from({ length: 1025 }, () => SLOT0);
    const cases: Array<[unknown[], number, string]> = [
      [[{}], -32602, "empty request"],
      [[{ [CONTRACT]: [] }], -32602, "empty request"],
      [[{ [CONTRACT]: tooMany }], -38026, "too many slots (max 1024)"],
      [[{ [CONTRACT]: [SLOT0] }, "0x99"], -32000, "header not found"],
      [
        [{ [CONTRACT]: ["0x01"] }],
        -32602,
        "invalid argument 0: hex string has length 2, want 64 for common.Hash",
      ],
    ];
    for (const [params, code, message] of cases) {
      const r = (await rpc(server.dedicatedUrl, {
        jsonrpc: "2.0",
        id: 1,
        method: "eth_getStorageValues",
        params,
      })) as {
        error: unknown;
      };
      assert.deepEqual(r.error, { code, message }, JSON.stringify(params).slice(0, 80));
    }
  });
});
