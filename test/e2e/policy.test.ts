// The documented public rule that keeps the pre-confirmed view from public endpoints,
// `{"method":"*","action":"deny","selectors":["pending"]}`, holds for every method that takes a
// block: the policy reads each call's blocks through the method registry's declarations, so the
// methods a hand-kept table once missed are refused too, while the dedicated endpoint serves them.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import { startTestDevNode } from "../utils/devChain.ts";
import { testFrontendOptions } from "../utils/options.ts";

const DENY_PENDING = '{"public":[{"method":"*","action":"deny","selectors":["pending"]}]}';

type Answer = {
  status: number;
  body: { result?: unknown; error?: { code: number; message: string } };
};

async function post(url: string, method: string, params: unknown[]): Promise<Answer> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return { status: res.status, body: JSON.parse(await res.text()) };
}

describe("--policy: deny * at pending on public", () => {
  let node: DevNode;
  let from = "";
  let to = "";
  before(async () => {
    node = await startTestDevNode({ frontend: testFrontendOptions(["--policy", DENY_PENDING]) });
    from = node.accounts[0]!.address;
    to = node.accounts[1]!.address;
  });
  after(async () => {
    await node.close();
  });

  /**
   * Refused on public at pending; served on public at latest and on dedicated at pending.
   * `pendingError`: what the method itself may answer at pending, when a pre-confirmed block
   * exists (eth_getProof: it has no state root yet) — an answer, not a refusal.
   */
  async function check(
    method: string,
    params: (tag: string) => unknown[],
    pendingError?: RegExp,
  ): Promise<void> {
    const refused = await post(node.url, method, params("pending"));
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.deepEqual(refused.body.error, {
      code: -32001,
      message: "rpc method is not whitelisted",
    });
    const latest = await post(node.url, method, params("latest"));
    assert.equal(latest.status, 200, JSON.stringify(latest.body));
    assert.equal(latest.body.error, undefined, JSON.stringify(latest.body));
    assert.notEqual(latest.body.result, undefined);
    const pending = await post(node.dedicatedUrl, method, params("pending"));
    assert.equal(pending.status, 200, JSON.stringify(pending.body));
    if (pending.body.error !== undefined && pendingError?.test(pending.body.error.message)) return;
    assert.equal(pending.body.error, undefined, JSON.stringify(pending.body));
    assert.notEqual(pending.body.result, undefined);
  }

  test("the public default stays: eth_getBlockReceipts at latest is refused on public only", async () => {
    const refused = await post(node.url, "eth_getBlockReceipts", ["latest"]);
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.error?.code, -32001);
    const served = await post(node.dedicatedUrl, "eth_getBlockReceipts", ["latest"]);
    assert.equal(served.status, 200, JSON.stringify(served.body));
    assert.ok(Array.isArray(served.body.result));
  });

  test("eth_createAccessList", async () => {
    await check("eth_createAccessList", (tag) => [{ from, to, value: "0x1" }, tag]);
  });

  test("eth_getProof", async () => {
    await check(
      "eth_getProof",
      (tag) => [to, [], tag],
      /not available for the pre-confirmed block/,
    );
  });

  test("eth_call", async () => {
    await check("eth_call", (tag) => [{ from, to, data: "0x" }, tag]);
  });

  test("eth_getLogs with toBlock pending", async () => {
    await check("eth_getLogs", (tag) => [{ toBlock: tag }]);
  });
});
