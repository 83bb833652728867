// Replays every execution-apis `.io` fixture over HTTP against the imported fixture chain and
// compares the answers with JSON equality.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { RunningServer } from "../../src/node/archiveServer.ts";
import { fixtureServer } from "../utils/archiveServer.ts";
import { ioCases, rpc } from "../utils/fixtures.ts";

/**
 * tests-more/ holds every other method's files; these methods are served whole and replayed
 * too. The rest are not served yet (debug_trace*, txpool_*, …) or not by `serve` alone
 * (eth_sendRawTransaction needs dev's sequencer).
 */
const MORE_METHODS = [
  "eth_call",
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
];
const cases = [...ioCases(), ...ioCases("tests-more", MORE_METHODS)];
let server: RunningServer;

/** The same JSON shape: kinds, object keys (recursively), and the first element of arrays. */
function assertSameShape(actual: unknown, expected: unknown, path: string): void {
  const kind = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
  assert.equal(kind(actual), kind(expected), `kind at ${path || "the top"}`);
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length > 0) {
      assert.ok(actual.length > 0, `${path} is empty`);
      assertSameShape(actual[0], expected[0], `${path}[0]`);
    }
  } else if (kind(expected) === "object") {
    const a = actual as Record<string, unknown>;
    const e = expected as Record<string, unknown>;
    assert.deepEqual(Object.keys(a).sort(), Object.keys(e).sort(), `keys at ${path || "the top"}`);
    for (const k of Object.keys(e)) assertSameShape(a[k], e[k], `${path}.${k}`);
  }
}

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
