import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createFakeFeed } from "../../test/utils/fakeFeed.ts";
import { createDispatcher } from "../rpc/dispatch.ts";
import type { RequestContext } from "../rpc/method.ts";
import { newSubscriptionId, SubscriptionSet, subscriptionMethods } from "./subscriptions.ts";

const ID = /^0x(0|[1-9a-f][0-9a-f]{0,31})$/;

function setup() {
  const feed = createFakeFeed();
  const sent: string[] = [];
  let overflows = 0;
  const subs = new SubscriptionSet({
    feed,
    send: (t) => sent.push(t),
    onOverflow: () => overflows++,
    maxInactive: 2,
  });
  const dispatcher = createDispatcher(subscriptionMethods(subs), { subscriptions: true });
  const call = async (
    method: string,
    params: unknown[],
    ctx: RequestContext = { tier: "public" },
  ) =>
    JSON.parse(
      (await dispatcher.handle(
        JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
        ctx,
      )) as string,
    ) as { result?: unknown; error?: { code: number; message: string } };
  return { feed, sent, subs, call, overflows: () => overflows };
}

describe("subscription ids (geth rpc.NewID)", () => {
  it("are hex quantities without leading zeros", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = newSubscriptionId();
      assert.match(id, ID);
      seen.add(id);
    }
    assert.equal(seen.size, 2000);
  });
});

describe("subscription set", () => {
  it("buffers notifications until activation, then sends directly", async () => {
    const s = setup();
    const ctx: RequestContext = { tier: "public" };
    const id = s.subs.subscribe("newHeads", undefined, ctx);
    s.feed.emitNewHead({ blockNumber: 1, hash: "0x1", json: '{"number":"0x1"}' });
    assert.equal(s.sent.length, 0);
    s.subs.activate(ctx);
    s.feed.emitNewHead({ blockNumber: 2, hash: "0x2", json: '{"number":"0x2"}' });
    assert.deepEqual(s.sent, [
      `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":{"number":"0x1"}}}`,
      `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":{"number":"0x2"}}}`,
    ]);
  });

  it("reports an overflowing inactive buffer", () => {
    const s = setup();
    s.subs.subscribe("newFlashblocks", undefined, { tier: "public" });
    for (let i = 0; i < 3; i++) s.feed.emitFlashblock({ blockNumber: 1, index: i, json: "{}" });
    assert.equal(s.overflows(), 1);
  });

  it("unsubscribe removes the feed listener; closeAll removes all", async () => {
    const s = setup();
    const ctx: RequestContext = { tier: "public" };
    const a = s.subs.subscribe("newHeads", undefined, ctx);
    s.subs.subscribe("logs", undefined, ctx);
    s.subs.subscribe("newFlashblocks", undefined, ctx);
    assert.equal(s.feed.listenerCount(), 3);
    assert.equal(s.subs.unsubscribe(a), true);
    assert.equal(s.feed.listenerCount(), 2);
    assert.throws(() => s.subs.unsubscribe(a), { message: "subscription not found" });
    s.subs.closeAll();
    assert.equal(s.feed.listenerCount(), 0);
    assert.equal(s.subs.size, 0);
  });

  it("eth_subscribe argument errors follow geth", async () => {
    const s = setup();
    assert.deepEqual((await s.call("eth_subscribe", ["nope"])).error, {
      code: -32601,
      message: 'no "nope" subscription in eth namespace',
    });
    assert.deepEqual((await s.call("eth_subscribe", [])).error, {
      code: -32602,
      message: "expected subscription name as first argument",
    });
    assert.deepEqual((await s.call("eth_subscribe", [7])).error, {
      code: -32602,
      message: "expected subscription name as first argument",
    });
    assert.deepEqual((await s.call("eth_subscribe", ["newHeads", {}])).error, {
      code: -32602,
      message: "too many arguments, want at most 1",
    });
    assert.deepEqual((await s.call("eth_subscribe", ["logs", {}, 1])).error, {
      code: -32602,
      message: "too many arguments, want at most 2",
    });
    assert.deepEqual((await s.call("eth_subscribe", ["logs", { topics: [1] }])).error, {
      code: -32602,
      message: "invalid argument 1: invalid topic(s)",
    });
    assert.deepEqual((await s.call("eth_unsubscribe", ["0x1"])).error, {
      code: -32000,
      message: "subscription not found",
    });
    assert.deepEqual((await s.call("eth_unsubscribe", [])).error, {
      code: -32602,
      message: "missing value for required argument 0",
    });
    assert.equal(s.feed.listenerCount(), 0);
  });

  it("eth_subscribe returns an id that eth_unsubscribe accepts once", async () => {
    const s = setup();
    const { result: id } = await s.call("eth_subscribe", ["logs", { address: [] }]);
    assert.equal(typeof id, "string");
    assert.match(id as string, ID);
    assert.equal((await s.call("eth_unsubscribe", [id])).result, true);
    assert.equal((await s.call("eth_unsubscribe", [id])).error?.message, "subscription not found");
  });

  it("newPendingTransactions: hashes, or whole transactions with `true`; deposits left out", async () => {
    const s = setup();
    const ctx: RequestContext = { tier: "public" };
    const hashes = s.subs.subscribe("newPendingTransactions", undefined, ctx);
    const full = s.subs.subscribe("newPendingTransactions", undefined, ctx, true);
    s.subs.activate(ctx);
    let rendered = 0;
    s.feed.emitPreconfirmed({
      blockNumber: 5,
      transactionHashes: ["0xd0", "0xa1", "0xa2"],
      logs: [],
      sent: {
        hashes: ["0xa1", "0xa2"],
        json: () => {
          rendered++;
          return ['{"hash":"0xa1"}', '{"hash":"0xa2"}'];
        },
      },
    });
    const note = (id: string, result: string) =>
      `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":${result}}}`;
    assert.deepEqual(s.sent, [
      note(hashes, '"0xa1"'),
      note(hashes, '"0xa2"'),
      note(full, '{"hash":"0xa1"}'),
      note(full, '{"hash":"0xa2"}'),
    ]);
    assert.equal(rendered, 1);
    assert.equal(
      typeof (await s.call("eth_subscribe", ["newPendingTransactions", false])).result,
      "string",
    );
    assert.equal(
      typeof (await s.call("eth_subscribe", ["newPendingTransactions", null])).result,
      "string",
    );
    assert.deepEqual((await s.call("eth_subscribe", ["newPendingTransactions", "yes"])).error, {
      code: -32602,
      message: "Expected boolean parameter for newPendingTransactions",
    });
  });
});
