// Replays every execution-apis `.io` fixture over HTTP against the imported fixture chain and
// compares the answers with JSON equality.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { RunningServer } from "../../src/node/archiveServer.ts";
import { fixtureServer } from "../utils/archiveServer.ts";
import { ioCases, rpc } from "../utils/fixtures.ts";

/**
 * tests-more/ holds every other method's files; these methods are served whole and replayed
 * too. The rest (eth_getLogs, eth_simulateV1, debug_*, …) are issue 13's.
 */
const MORE_METHODS = ["eth_getLogs", "eth_getTransactionByHash"];
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
    assert.ok(cases.length >= 46 + 8, `expected the 46 fixtures and 8 more, found ${cases.length}`);
  });

  for (const c of cases) {
    test(c.file, async () => {
      // The dedicated endpoint: public ones refuse eth_getBlockReceipts by default (HTTP 403).
      const actual = await rpc(server.dedicatedUrl, c.request);
      assert.deepEqual(actual, JSON.parse(c.response), c.comment);
    });
  }

  after(() => {
    console.log(`conformance: ${cases.length} execution-apis fixtures replayed`);
  });
});
