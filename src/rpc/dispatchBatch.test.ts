import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { DispatcherOptions } from "./dispatch.ts";
import { createDispatcher } from "./dispatch.ts";
import type { MethodRegistry, RequestContext } from "./method.ts";
import { defineMethod, required } from "./method.ts";

const ctx: RequestContext = { tier: "public" };
let counter = 0;
const order: string[] = [];

const methods: MethodRegistry = {
  test_echo: defineMethod({ params: [required((raw) => raw)], handler: ([a]) => [a] }),
  test_none: defineMethod({ params: [], handler: () => "none" }),
  test_string: defineMethod({
    params: [required((raw) => raw)],
    handler: ([n]) => "x".repeat(Number(n)),
  }),
  test_count: defineMethod({
    params: [],
    handler: () => {
      counter++;
      return counter;
    },
  }),
  test_sleep: defineMethod({
    params: [required((raw) => raw)],
    handler: async ([tag]) => {
      order.push(`start ${String(tag)}`);
      // Yields to the event loop: a call run alongside would start meanwhile.
      await new Promise((r) => setImmediate(r));
      order.push(`end ${String(tag)}`);
      return tag;
    },
  }),
  test_hang: defineMethod({ params: [], handler: () => new Promise(() => {}) }),
};

const handle = (body: string) => createDispatcher(methods).handle(body, ctx);
const withOptions = (opts: DispatcherOptions) => createDispatcher(methods, opts);

const INVALID = (id: string) =>
  `{"jsonrpc":"2.0","id":${id},"error":{"code":-32600,"message":"invalid request"}}`;
const call = (id: string, method: string, params?: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":"${method}"${params === undefined ? "" : `,"params":${params}`}}`;
const result = (id: string, json: string) => `{"jsonrpc":"2.0","id":${id},"result":${json}}`;
const error = (id: string, code: number, message: string) =>
  `{"jsonrpc":"2.0","id":${id},"error":{"code":${code},"message":${JSON.stringify(message)}}}`;

describe("batches", () => {
  it("answers an empty batch with one error object", async () => {
    assert.equal(
      await handle("[]"),
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}',
    );
    assert.equal(
      await handle(" [ ] "),
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}',
    );
  });

  it("answers each entry, drops notifications, flags invalid entries", async () => {
    const body = `[${call("1", "test_echo", '["a"]')},{"jsonrpc":"2.0","method":"test_count"},1,null,${call("{}", "test_none")},${call('"x"', "nope")}]`;
    assert.equal(
      await handle(body),
      `[${result("1", '["a"]')},${INVALID("null")},${INVALID("null")},${INVALID("null")},${error('"x"', -32601, "the method nope does not exist/is not available")}]`,
    );
  });

  it("sends nothing for an all-notification batch", async () => {
    const before = counter;
    assert.equal(
      await handle(
        '[{"jsonrpc":"2.0","method":"test_count"},{"jsonrpc":"2.0","method":"test_count"}]',
      ),
      undefined,
    );
    assert.equal(counter, before + 2);
  });

  it("runs calls sequentially, in order", async () => {
    order.length = 0;
    const out = await handle(
      `[${call("1", "test_sleep", '["a"]')},${call("2", "test_sleep", '["b"]')}]`,
    );
    assert.equal(out, `[${result("1", '"a"')},${result("2", '"b"')}]`);
    assert.deepEqual(order, ["start a", "end a", "start b", "end b"]);
  });

  it("refuses batches over the limit with the first call's id", async () => {
    const d = withOptions({ batchRequestLimit: 2 });
    const body = `[1,${call('"first"', "test_none")},${call("2", "test_none")}]`;
    assert.equal(
      await d.handle(body, ctx),
      '[{"jsonrpc":"2.0","id":"first","error":{"code":-32600,"message":"batch too large"}}]',
    );
    assert.equal(
      await d.handle("[1,2,3]", ctx),
      '[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large"}}]',
    );
    const big = `[${Array.from({ length: 1001 }, (_, i) => call(String(i + 5), "test_none")).join(",")}]`;
    assert.equal(
      await handle(big),
      '[{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"batch too large"}}]',
    );
  });

  it("answers the rest with -32003 once responses exceed the size limit", async () => {
    const d = withOptions({ batchResponseMaxSize: 10 });
    const body = `[${call("1", "test_string", "[4]")},${call("2", "test_string", "[20]")},{"jsonrpc":"2.0","method":"test_count"},${call("3", "test_none")},{"id":[1]}]`;
    assert.equal(
      await d.handle(body, ctx),
      `[${result("1", '"xxxx"')},${result("2", `"${"x".repeat(20)}"`)},${error("3", -32003, "response too large")},${error("[1]", -32003, "response too large")}]`,
    );
    // An entry without an id gets no id at all in that case.
    assert.equal(
      await d.handle(`[${call("1", "test_string", "[20]")},{"method":"x"}]`, ctx),
      `[${result("1", `"${"x".repeat(20)}"`)},{"jsonrpc":"2.0","error":{"code":-32003,"message":"response too large"}}]`,
    );
  });

  it("times out the call in progress and the rest of the batch", async () => {
    const d = withOptions({ requestTimeoutMs: 30 });
    const body = `[${call("1", "test_none")},${call("2", "test_hang")},${call("3", "test_none")}]`;
    assert.equal(
      await d.handle(body, ctx),
      `[${result("1", '"none"')},${error("2", -32002, "request timed out")},${error("3", -32002, "request timed out")}]`,
    );
  });

  it("drops responses inside a batch", async () => {
    assert.equal(
      await handle(`[{"jsonrpc":"2.0","id":1,"result":1},${call("2", "test_none")}]`),
      `[${result("2", '"none"')}]`,
    );
    assert.equal(await handle('[{"jsonrpc":"2.0","id":1,"result":1}]'), undefined);
  });
});
