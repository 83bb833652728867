// Replays the execution-apis files that need a node taking transactions: `flashnode dev`
// continuing the imported fixture chain (the CLI, with two RPC reader processes), in the order
// the suite runs them. The block time is long enough that nothing is sealed during the run: the
// testing_buildBlockV1 files build on the imported head, and the txpool files find the
// transactions the eth_sendRawTransaction files sent still in the pool (pre-confirmed
// transactions stay in the pool until a sealed block includes them, as in geth).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type CliNode, startReadersNode } from "../utils/cliNode.ts";
import { importFixtureChain, ioCases, rpc } from "../utils/fixtures.ts";
import { stopChild } from "../utils/processes.ts";
import { assertSameShape } from "../utils/shape.ts";

/** In the suite's order (its directories sorted): the sent transactions first. */
const DEV_METHODS = [
  "eth_sendRawTransaction",
  "testing_buildBlockV1",
  "txpool_content",
  "txpool_contentFrom",
  "txpool_status",
];
const KEY = "conformance-dev-key";
const cases = ioCases("tests-more", DEV_METHODS);
let node: CliNode;
let url: string;

describe(`execution-apis conformance on dev (${cases.length} fixtures)`, () => {
  before(async () => {
    // No seal during the run: the files build on the imported head and find the pool as sent.
    node = await startReadersNode("dev", importFixtureChain("conformance-dev"), KEY, [
      "--block-time",
      "3600s",
      "--flashblock-interval",
      "100ms",
    ]);
    url = node.dedicatedUrl;
  });
  after(async () => {
    await stopChild(node?.child);
  });

  test("files are present, in the suite's order", () => {
    // 4 + 3 + 1 + 1 + 1 as carried; more are fine.
    assert.ok(cases.length >= 10, `expected 10 fixtures or more, found ${cases.length}`);
    const methods = cases.map((c) => c.file.split("/")[0]);
    assert.deepEqual(methods, [...methods].sort());
  });

  test("the banner names the continued chain and offers no test accounts", () => {
    assert.match(node.output(), /No prefunded accounts/);
    assert.match(node.output(), /Chain ID: 3503995874084926/);
    assert.match(node.output(), /Continuing the chain in the datadir from block 54/);
  });

  for (const c of cases) {
    test(c.file, async () => {
      const actual = await rpc(url, c.request);
      if (c.comment.includes("speconly")) assertSameShape(actual, JSON.parse(c.response), "");
      else assert.deepEqual(actual, JSON.parse(c.response), c.comment);
    });
  }
});
