import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { importFixtureChain, rpc } from "../../test/utils/fixtures.ts";
import { startArchiveServer } from "../../test/utils/nodes.ts";
import { testFrontendOptions } from "../../test/utils/options.ts";
import { createLogger } from "../log/logger.ts";
import type { RunningNode as RunningServer } from "../node/plan.ts";
import { type CallLimits, goDuration } from "./callLimits.ts";

// Contract creations run their init code, so no contract has to be deployed: what the code
// returns is the call's result.
const RETURN_GAS = "0x5a60005260206000f3"; // GAS PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
const RETURN_GASLIMIT = "0x4560005260206000f3"; // GASLIMIT, returned the same way
const LOOP = "0x5b600056"; // JUMPDEST PUSH1 0 JUMP, for ever

type Reply = { result?: string; error?: { code: number; message: string } };
const warnings: Array<{ msg: string; requested?: string; cap?: string }> = [];
const servers: RunningServer[] = [];
let capped: string; // --rpc-gascap 100000 --rpc-evmtimeout 0
let uncapped: string; // --rpc-gascap 0 --rpc-evmtimeout 300ms

async function ask(url: string, method: string, params: unknown[]): Promise<Reply> {
  return (await rpc(url, { jsonrpc: "2.0", id: 1, method, params })) as Reply;
}

async function serve(datadir: string, callLimits: CallLimits): Promise<string> {
  const server = await startArchiveServer({
    datadir,
    frontend: testFrontendOptions(),
    logger: createLogger("warn", { write: (s: string) => void warnings.push(JSON.parse(s)) }),
    callLimits,
  });
  servers.push(server);
  return server.dedicatedUrl;
}

test("durations as Go prints them", () => {
  assert.equal(goDuration(5000), "5s");
  assert.equal(goDuration(300), "300ms");
  assert.equal(goDuration(1500), "1.5s");
  assert.equal(goDuration(90_000), "1m30s");
  assert.equal(goDuration(60_000), "1m0s");
  assert.equal(goDuration(3_600_000), "1h0m0s");
});

describe("--rpc-gascap and --rpc-evmtimeout", () => {
  before(async () => {
    const datadir = importFixtureChain("callLimits");
    capped = await serve(datadir, { gasCap: 100_000n, evmTimeoutMs: 0 });
    uncapped = await serve(datadir, { gasCap: 0n, evmTimeoutMs: 300 });
  });
  after(async () => {
    for (const s of servers) await s.close();
  });

  test("a call's gas above the cap runs with the cap, with a warning", async () => {
    const gasLeft = async (url: string, gas: number) => {
      const r = await ask(url, "eth_call", [{ data: RETURN_GAS, gas: `0x${gas.toString(16)}` }]);
      assert.equal(r.error, undefined);
      return BigInt(r.result!);
    };
    const atCap = await gasLeft(capped, 100_000);
    assert.ok(atCap > 0n && atCap < 100_000n);
    warnings.length = 0;
    assert.equal(await gasLeft(capped, 200_000), atCap);
    assert.deepEqual(
      warnings.map((w) => [w.msg, w.requested, w.cap]),
      [["Caller gas above allowance, capping", "200000", "100000"]],
    );
    // No gas given: the cap.
    const r = await ask(capped, "eth_call", [{ data: RETURN_GAS }]);
    assert.equal(BigInt(r.result!), atCap);
    // Without a cap the request's gas is used as given: past EIP-7825's 2^24 and past the
    // block's gas limit (the fixture chain is in Osaka; its blocks hold 200,000,000 gas).
    assert.equal(await gasLeft(uncapped, 200_000), atCap + 100_000n);
    assert.equal(await gasLeft(uncapped, 300_000_000), atCap + 299_900_000n);
    // GASLIMIT stays the block's whatever the call's gas.
    const limit = await ask(uncapped, "eth_call", [{ data: RETURN_GASLIMIT, gas: "0x11e1a300" }]);
    assert.equal(BigInt(limit.result!), 200_000_000n);
  });

  test("the cap bounds eth_estimateGas and eth_createAccessList", async () => {
    assert.deepEqual((await ask(capped, "eth_estimateGas", [{ data: LOOP }])).error, {
      code: -32000,
      message: "gas required exceeds allowance (100000)",
    });
    assert.deepEqual(
      (await ask(capped, "eth_estimateGas", [{ data: LOOP, gas: "0x30d40" }])).error,
      { code: -32000, message: "gas required exceeds allowance (100000)" },
    );
    const list = await rpc(capped, {
      jsonrpc: "2.0",
      id: 1,
      method: "eth_createAccessList",
      params: [{ data: LOOP, gas: "0x30d40" }, "latest"],
    });
    assert.deepEqual(list, {
      jsonrpc: "2.0",
      id: 1,
      result: { accessList: [], error: "out of gas", gasUsed: "0x186a0" },
    });
  });

  test("an endless call is aborted at the timeout; the worker answers the next call", async () => {
    const started = performance.now();
    // Without a cap the loop has 2^63 gas: only the timeout ends it.
    const loop = await ask(uncapped, "eth_call", [{ data: LOOP }]);
    assert.deepEqual(loop.error, { code: -32000, message: "execution aborted (timeout = 300ms)" });
    // Not before its timeout (its answer names it as what ended the call).
    const took = performance.now() - started;
    assert.ok(took >= 300, `answered ${took} ms after the call`);
    const next = await ask(uncapped, "eth_call", [{ data: RETURN_GAS }]);
    assert.equal(next.error, undefined);
    assert.ok(BigInt(next.result!) > 0n);
    // eth_estimateGas is bounded by gas only, as in geth: the loop runs out of it.
    const estimate = await ask(capped, "eth_estimateGas", [{ data: LOOP }]);
    assert.equal(estimate.error?.message, "gas required exceeds allowance (100000)");
  });
});
