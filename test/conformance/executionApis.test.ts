// Replays every execution-apis `.io` fixture over HTTP against the imported fixture chain and
// compares the answers with JSON equality.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { RunningNode as RunningServer } from "../../src/node/plan.ts";
import { fixtureServer } from "../utils/archiveServer.ts";
import { ioCases, rpc } from "../utils/fixtures.ts";
import { assertSameShape } from "../utils/shape.ts";

/**
 * tests-more/ holds every other method's files; these methods are served by `serve` and replayed
 * here. The pool's files (eth_sendRawTransaction, txpool_*, testing_buildBlockV1) need dev's
 * sequencer on the same chain: test/conformance/executionApisDev.test.ts replays them.
 */
const MORE_METHODS = [
  "eth_call",
  "eth_capabilities",
  "eth_config",
  "eth_createAccessList",
  "eth_estimateGas",
  "eth_feeHistory",
  "eth_getLogs",
  "eth_getProof",
  "eth_simulateV1",
  "eth_getTransactionByHash",
  "eth_getBlockTransactionCountByHash",
  "eth_getBlockTransactionCountByNumber",
  "eth_getTransactionByBlockHashAndIndex",
  "eth_getTransactionByBlockNumberAndIndex",
  "eth_getUncleCountByBlockHash",
  "eth_getUncleCountByBlockNumber",
  "eth_getUncleByBlockHashAndIndex",
  "eth_getUncleByBlockNumberAndIndex",
  "eth_baseFee",
  "eth_blobBaseFee",
  "debug_getRawHeader",
  "debug_getRawBlock",
  "debug_getRawReceipts",
  "debug_getRawTransaction",
  "debug_traceTransaction",
  "debug_traceBlockByNumber",
  "debug_traceBlockByHash",
];
const cases = [...ioCases(), ...ioCases("tests-more", MORE_METHODS)];
let server: RunningServer;

describe(`execution-apis conformance (${cases.length} fixtures)`, () => {
  before(async () => {
    server = await fixtureServer("conformance");
  });
  after(async () => {
    await server?.close();
  });

  test("fixtures are present", () => {
    // tests/: 46; tests-more/: 8 of eth_getTransactionByHash, 16 of the block, raw and fee methods.
    assert.ok(cases.length >= 46 + 8 + 16, `expected 70 fixtures or more, found ${cases.length}`);
  });

  for (const c of cases) {
    test(c.file, async () => {
      // The dedicated endpoint: public ones refuse eth_getBlockReceipts by default (HTTP 403).
      const actual = await rpc(server.dedicatedUrl, c.request);
      // "speconly" files are checked for the response's shape, not its values.
      if (c.comment.includes("speconly")) assertSameShape(actual, JSON.parse(c.response), "");
      else assert.deepEqual(actual, JSON.parse(c.response), c.comment);
    });
  }

  after(() => {
    console.log(`conformance: ${cases.length} execution-apis fixtures replayed`);
  });
});
