import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidParamsError, RpcError } from "../services/errors.ts";
import { bytesToHex } from "../util/hex.ts";
import type { DispatcherOptions } from "./dispatch.ts";
import { createDispatcher } from "./dispatch.ts";
import type { MethodRegistry, RequestContext } from "./method.ts";
import { defineMethod, optional, RawJson, RawJsonBytes, required } from "./method.ts";
import {
  decodeStorageKey,
  parseAddress,
  parseBlockSelector,
  parseQuantity,
  parseStorageKeyString,
} from "./params.ts";
import { SplicedBody } from "./splicedBody.ts";

const ctx: RequestContext = { tier: "public" };
const identity = (raw: unknown): unknown => raw;
let counter = 0;

const methods: MethodRegistry = {
  test_echo: defineMethod({
    params: [required(identity), optional(identity)],
    handler: ([a, b]) => (b === undefined ? [a] : [a, b]),
  }),
  test_none: defineMethod({ params: [], handler: () => "none" }),
  test_absent: defineMethod({
    params: [optional(identity, "left out")],
    handler: ([a]) => a,
  }),
  test_void: defineMethod({ params: [], handler: () => undefined }),
  test_quantity: defineMethod({
    params: [required(parseQuantity)],
    handler: ([q]) => `0x${q.toString(16)}`,
  }),
  test_throw: defineMethod({
    params: [],
    handler: async () => {
      throw new Error("header not found");
    },
  }),
  test_data: defineMethod({
    params: [],
    handler: () => {
      throw new RpcError(3, "execution reverted", "0x08c379a0");
    },
  }),
  test_nonError: defineMethod({
    params: [],
    handler: () => {
      throw "boom";
    },
  }),
  test_bigint: defineMethod({ params: [], handler: () => 1n }),
  test_raw: defineMethod({ params: [], handler: () => new RawJson('{"b":[1,2]}') }),
  test_rawBytes: defineMethod({
    params: [],
    handler: () => new RawJsonBytes(Buffer.from('{"b":["é",2]}')),
  }),
  test_string: defineMethod({
    params: [required(identity)],
    handler: ([n]) => "x".repeat(Number(n)),
  }),
  test_count: defineMethod({
    params: [],
    handler: () => {
      counter++;
      return counter;
    },
  }),
  test_hang: defineMethod({ params: [], handler: () => new Promise(() => {}) }),
  test_getStorageAt: defineMethod({
    params: [required(parseAddress), required(parseStorageKeyString), optional(parseBlockSelector)],
    handler: ([address, key, block]) => {
      // As geth: the block is resolved before the key is decoded.
      if (block?.kind === "number" && block.number > 10n) throw new Error("header not found");
      return `${bytesToHex(address).slice(0, 4)}:${bytesToHex(decodeStorageKey(key))}`;
    },
  }),
  test_paramsError: defineMethod({
    params: [],
    handler: () => {
      throw new InvalidParamsError('invalid hex in storage key: "0xzz"');
    },
  }),
};

const dispatcher = createDispatcher(methods);
/** The response text (these tests never refuse at admission). */
const handle = async (body: string) => {
  const out = await dispatcher.handle(body, ctx);
  if (out instanceof SplicedBody) return out.toBuffer().toString();
  if (typeof out === "object") throw new Error(`refused: ${out.body}`);
  return out;
};
const withOptions = (opts: DispatcherOptions) => createDispatcher(methods, opts);

const PARSE_ERROR = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}';
const INVALID = (id: string) =>
  `{"jsonrpc":"2.0","id":${id},"error":{"code":-32600,"message":"invalid request"}}`;
const call = (id: string, method: string, params?: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":"${method}"${params === undefined ? "" : `,"params":${params}`}}`;
const result = (id: string, json: string) => `{"jsonrpc":"2.0","id":${id},"result":${json}}`;
const error = (id: string, code: number, message: string) =>
  `{"jsonrpc":"2.0","id":${id},"error":{"code":${code},"message":${JSON.stringify(message)}}}`;

describe("single calls", () => {
  it("answers a call", async () => {
    assert.equal(await handle(call("1", "test_echo", '["a"]')), result("1", '["a"]'));
  });

  it("hands an optional parameter's absent value for one left out or null", async () => {
    assert.equal(await handle(call("1", "test_absent", "[]")), result("1", '"left out"'));
    assert.equal(await handle(call("2", "test_absent", "[null]")), result("2", '"left out"'));
    assert.equal(await handle(call("3", "test_absent")), result("3", '"left out"'));
    assert.equal(await handle(call("4", "test_absent", '["x"]')), result("4", '"x"'));
  });

  it("echoes the id byte for byte", async () => {
    for (const id of [
      "1.0",
      "1e2",
      "-0",
      "123456789012345678901234567890",
      '"abc"',
      '"\\u0041"',
      "null",
      "true",
    ]) {
      assert.equal(await handle(call(id, "test_none")), result(id, '"none"'), id);
    }
  });

  it("rejects object and array ids with id null", async () => {
    assert.equal(await handle(call("{}", "test_none")), INVALID("null"));
    assert.equal(await handle(call("[1]", "test_none")), INVALID("null"));
  });

  it("treats a missing id as a notification: executed, no response", async () => {
    const before = counter;
    assert.equal(await handle('{"jsonrpc":"2.0","method":"test_count"}'), undefined);
    assert.equal(counter, before + 1);
  });

  it("answers wrong version or missing method with invalid request", async () => {
    assert.equal(await handle('{"jsonrpc":"1.0","id":7,"method":"test_none"}'), INVALID("7"));
    assert.equal(await handle('{"id":7,"method":"test_none"}'), INVALID("7"));
    assert.equal(await handle('{"jsonrpc":"2.0","id":7}'), INVALID("7"));
    assert.equal(await handle('{"jsonrpc":"2.0","id":7,"method":5}'), INVALID("7"));
    assert.equal(await handle('{"jsonrpc":"1.0","method":"test_none"}'), INVALID("null"));
  });

  it("answers non-objects with invalid request, id null", async () => {
    for (const body of ["1", '"x"', "null", "true"])
      assert.equal(await handle(body), INVALID("null"));
  });

  it("answers malformed JSON with a parse error", async () => {
    for (const body of ['{"jsonrpc":', "[1,]", "{'a':1}", "x", "\ufeff{}", '{"a":01}']) {
      assert.equal(await handle(body), PARSE_ERROR, body);
    }
  });

  it("ignores what follows the first JSON value, as Go's decoder", async () => {
    assert.equal(await handle(`${call("1", "test_none")} trailing}`), result("1", '"none"'));
    assert.equal(await handle(`  ${call("2", "test_none")}{"x":`), result("2", '"none"'));
    assert.equal(await handle("01"), INVALID("null"));
  });

  it("sends nothing for an empty body", async () => {
    assert.equal(await handle(""), undefined);
    assert.equal(await handle(" \n\t"), undefined);
  });

  it("rejects JSON nested deeper than Go allows", async () => {
    const nested = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
    assert.equal(await handle(nested(10_001)), PARSE_ERROR);
    assert.equal(await handle(`[${nested(9_999)}]`), `[${INVALID("null")}]`);
    // Depth counts from the message object: object, params array, then the nested arrays.
    assert.equal(await handle(call("1", "test_none", `[${nested(9_999)}]`)), PARSE_ERROR);
    assert.equal(
      await handle(call("1", "test_none", `[${nested(9_998)}]`)),
      error("1", -32602, "too many arguments, want at most 0"),
    );
  });

  it("matches envelope keys case-insensitively, last duplicate wins", async () => {
    assert.equal(
      await handle('{"JSONRPC":"2.0","ID":7,"Method":"test_echo","PARAMS":["k"]}'),
      result("7", '["k"]'),
    );
    assert.equal(
      await handle('{"jsonrpc":"2.0","id":1,"id":2,"method":"test_none"}'),
      result("2", '"none"'),
    );
    // Go leaves a string field untouched when a later duplicate has another type.
    assert.equal(
      await handle('{"jsonrpc":"2.0","jsonrpc":5,"id":3,"method":"test_none"}'),
      result("3", '"none"'),
    );
    assert.equal(
      await handle('{"jſonrpc":"2.0","id":4,"method":"test_none"}'),
      result("4", '"none"'),
    );
  });

  it("answers id:null calls with id null", async () => {
    assert.equal(await handle(call("null", "test_none")), result("null", '"none"'));
  });

  it("drops responses and subscription pushes without answering", async () => {
    assert.equal(await handle('{"jsonrpc":"2.0","id":1,"result":"0x1"}'), undefined);
    assert.equal(await handle('{"jsonrpc":"2.0","id":1,"error":{"code":1}}'), undefined);
    assert.equal(
      await handle('{"jsonrpc":"2.0","method":"eth_subscription","params":{}}'),
      undefined,
    );
  });

  it("reports unknown methods with geth's text, Go-escaped", async () => {
    assert.equal(
      await handle(call("1", "eth_foo")),
      error("1", -32601, "the method eth_foo does not exist/is not available"),
    );
    assert.equal(
      await handle(call("1", "a<b>&")),
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"the method a\\u003cb\\u003e\\u0026 does not exist/is not available"}}',
    );
    assert.equal(
      await handle(call("1", "toString")),
      error("1", -32601, "the method toString does not exist/is not available"),
    );
  });

  it("limits method names to 2048 bytes", async () => {
    const long = "a".repeat(2049);
    // Go's json.Marshal escapes ">" in the message.
    assert.equal(
      await handle(call("1", long)),
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"method name too long: 2049 \\u003e 2048"}}',
    );
    const ok = "a".repeat(2048);
    assert.equal(
      await handle(call("1", ok)),
      error("1", -32601, `the method ${ok} does not exist/is not available`),
    );
    assert.match((await handle(call("1", "é".repeat(1025))))!, /too long: 2050 \\u003e 2048"/);
  });

  it("answers subscriptions as geth over HTTP", async () => {
    assert.equal(
      await handle(call("1", "eth_subscribe", '["newHeads"]')),
      error("1", -32601, "notifications not supported"),
    );
    assert.equal(
      await handle(call("1", "eth_unsubscribe", '["0x1"]')),
      error("1", -32000, "subscription not found"),
    );
    assert.equal(
      await handle(call("1", "eth_unsubscribe", "[1]")),
      error(
        "1",
        -32602,
        "invalid argument 0: json: cannot unmarshal number into Go value of type rpc.ID",
      ),
    );
    const ws = createDispatcher(
      { eth_subscribe: defineMethod({ params: [required(identity)], handler: () => "0x1" }) },
      { subscriptions: true },
    );
    assert.equal(
      await ws.handle(call("1", "eth_subscribe", '["newHeads"]'), ctx),
      result("1", '"0x1"'),
    );
  });
});

describe("arguments", () => {
  it("accepts omitted or null params", async () => {
    assert.equal(await handle(call("1", "test_none")), result("1", '"none"'));
    assert.equal(await handle(call("1", "test_none", "null")), result("1", '"none"'));
  });

  it("rejects non-array params", async () => {
    for (const p of ["{}", '"x"', "1", "true"]) {
      assert.equal(
        await handle(call("1", "test_none", p)),
        error("1", -32602, "non-array args"),
        p,
      );
    }
  });

  it("counts arguments as geth", async () => {
    assert.equal(
      await handle(call("1", "test_none", "[1]")),
      error("1", -32602, "too many arguments, want at most 0"),
    );
    assert.equal(
      await handle(call("1", "test_echo", "[1,2,3]")),
      error("1", -32602, "too many arguments, want at most 2"),
    );
    assert.equal(
      await handle(call("1", "test_echo", "[]")),
      error("1", -32602, "missing value for required argument 0"),
    );
    assert.equal(await handle(call("1", "test_echo", "[1,null]")), result("1", "[1]"));
    assert.equal(await handle(call("1", "test_echo", "[null]")), result("1", "[null]"));
  });

  it("prefixes parser errors with the argument index", async () => {
    assert.equal(
      await handle(call("1", "test_quantity", '["0x01"]')),
      error(
        "1",
        -32602,
        "invalid argument 0: json: cannot unmarshal hex number with leading zero digits into Go value of type *hexutil.Big",
      ),
    );
    const addr = `"0x${"ab".repeat(19)}"`;
    assert.equal(
      await handle(call("1", "test_getStorageAt", `[${addr},"0x0"]`)),
      error(
        "1",
        -32602,
        "invalid argument 0: hex string has length 38, want 40 for common.Address",
      ),
    );
    const good = `"0x${"ab".repeat(20)}"`;
    assert.equal(
      await handle(call("1", "test_getStorageAt", `[${good},1]`)),
      error(
        "1",
        -32602,
        "invalid argument 1: json: cannot unmarshal number into Go value of type string",
      ),
    );
    assert.equal(
      await handle(call("1", "test_getStorageAt", `[${good},"0x1","0x01"]`)),
      error("1", -32602, "invalid argument 2: hex number with leading zero digits"),
    );
  });

  it("reports a storage key error as is, after the block error", async () => {
    const good = `"0x${"ab".repeat(20)}"`;
    assert.equal(
      await handle(call("1", "test_getStorageAt", `[${good},"0xzz","0x10"]`)),
      error("1", -32000, "header not found"),
    );
    assert.equal(
      await handle(call("1", "test_getStorageAt", `[${good},"0xzz","latest"]`)),
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid hex in storage key: \\"0xzz\\""}}',
    );
    assert.equal(
      await handle(call("1", "test_getStorageAt", `[${good},null]`)),
      result("1", `"0xab:0x${"0".repeat(64)}"`),
    );
  });
});

describe("results and errors", () => {
  it("maps handler errors", async () => {
    assert.equal(await handle(call("1", "test_throw")), error("1", -32000, "header not found"));
    assert.equal(
      await handle(call("1", "test_data")),
      '{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted","data":"0x08c379a0"}}',
    );
    assert.equal(
      await handle(call("1", "test_nonError")),
      error("1", -32603, "method handler crashed"),
    );
    assert.equal(
      await handle(call("1", "test_paramsError")),
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid hex in storage key: \\"0xzz\\""}}',
    );
  });

  it("splices RawJson, writes null for undefined, refuses bigint", async () => {
    assert.equal(await handle(call("1", "test_raw")), result("1", '{"b":[1,2]}'));
    assert.equal(await handle(call("1", "test_void")), result("1", "null"));
    const out = JSON.parse((await handle(call("1", "test_bigint")))!);
    assert.equal(out.error.code, -32603);
  });

  it("writes RawJsonBytes as pieces: the cached bytes themselves, alone or in a batch", async () => {
    const single = await dispatcher.handle(call("7", "test_rawBytes"), ctx);
    assert.ok(single instanceof SplicedBody);
    const text = result("7", '{"b":["é",2]}');
    assert.equal(single.toBuffer().toString(), text);
    assert.equal(single.byteLength, Buffer.byteLength(text));
    assert.ok(
      single.parts.some((p) => Buffer.isBuffer(p)),
      "the bytes are not re-encoded",
    );
    const batch = await handle(
      `[${call("1", "test_raw")},${call("2", "test_rawBytes")},${call("3", "test_void")}]`,
    );
    assert.equal(
      batch,
      `[${result("1", '{"b":[1,2]}')},${result("2", '{"b":["é",2]}')},${result("3", "null")}]`,
    );
    // geth's batch response limit counts the spliced result's bytes (14 here: é is two).
    const limited = await createDispatcher(methods, { batchResponseMaxSize: 16 }).handle(
      `[${call("1", "test_rawBytes")},${call("2", "test_rawBytes")},${call("3", "test_raw")}]`,
      ctx,
    );
    assert.ok(limited instanceof SplicedBody);
    assert.equal(
      limited.toBuffer().toString(),
      `[${result("1", '{"b":["é",2]}')},${result("2", '{"b":["é",2]}')},${error("3", -32003, "response too large")}]`,
    );
  });

  it("times out a slow call with -32002", async () => {
    const d = withOptions({ requestTimeoutMs: 20 });
    assert.equal(
      await d.handle(call("1", "test_hang"), ctx),
      error("1", -32002, "request timed out"),
    );
    // geth writes the timeout even for a notification, without an id.
    assert.equal(
      await d.handle('{"jsonrpc":"2.0","method":"test_hang"}', ctx),
      '{"jsonrpc":"2.0","error":{"code":-32002,"message":"request timed out"}}',
    );
  });

  it("reports handlers that fail outside the RPC error classes", async () => {
    const seen: Array<[string, unknown]> = [];
    const d = withOptions({ onUnexpectedError: (method, e) => void seen.push([method, e]) });
    assert.equal(
      await d.handle(call("1", "test_throw"), ctx),
      error("1", -32000, "header not found"),
    );
    assert.equal(
      await d.handle(call("2", "test_nonError"), ctx),
      error("2", -32603, "method handler crashed"),
    );
    await d.handle(call("3", "test_data"), ctx);
    await d.handle(call("4", "test_quantity", '["zz"]'), ctx);
    assert.deepEqual(
      seen.map(([m]) => m),
      ["test_throw", "test_nonError"],
      "RpcError classes (reverts, bad params) are answers, not faults",
    );
    assert.equal((seen[0]![1] as Error).message, "header not found");
  });
});
