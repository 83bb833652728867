// Replays the execution-apis files that need a node taking transactions: `flashnode dev`
// continuing the imported fixture chain (the CLI, with two RPC reader processes), in the order
// the suite runs them. The block time is long enough that nothing is sealed during the run: the
// testing_buildBlockV1 files build on the imported head, and the txpool files find the
// transactions the eth_sendRawTransaction files sent still in the pool (pre-confirmed
// transactions stay in the pool until a sealed block includes them, as in geth).
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { waitForOutput } from "../../bench/lib/http.ts";
import { BIN, importFixtureChain, ioCases, rpc } from "../utils/fixtures.ts";
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
let node: ChildProcess;
let url: string;
let banner = "";

describe(`execution-apis conformance on dev (${cases.length} fixtures)`, () => {
  before(async () => {
    const datadir = importFixtureChain("conformance-dev");
    node = spawn(
      process.execPath,
      [
        BIN,
        "dev",
        "--datadir",
        datadir,
        "--port",
        "0",
        "--rpc-workers",
        "2",
        "--api-key",
        KEY,
        "--block-time",
        "3600s",
        "--flashblock-interval",
        "100ms",
        "--log-level",
        "warn",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    node.stdout?.on("data", (c: Buffer) => {
      banner += c.toString();
    });
    url = `${await waitForOutput(node, /JSON-RPC \(public\):\s+(\S+)/)}rpc/${KEY}`;
  });
  after(async () => {
    await stopChild(node);
  });

  test("files are present, in the suite's order", () => {
    // 4 + 3 + 1 + 1 + 1 as carried; more are fine.
    assert.ok(cases.length >= 10, `expected 10 fixtures or more, found ${cases.length}`);
    const methods = cases.map((c) => c.file.split("/")[0]);
    assert.deepEqual(methods, [...methods].sort());
  });

  test("the banner names the continued chain and offers no test accounts", () => {
    assert.match(banner, /No prefunded accounts/);
    assert.match(banner, /Chain ID: 3503995874084926/);
    assert.match(banner, /Continuing the chain in the datadir from block 54/);
  });

  for (const c of cases) {
    test(c.file, async () => {
      const actual = await rpc(url, c.request);
      if (c.comment.includes("speconly")) assertSameShape(actual, JSON.parse(c.response), "");
      else assert.deepEqual(actual, JSON.parse(c.response), c.comment);
    });
  }
});
