import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RemoteError, toWire } from "../util/channel.ts";
import { FlashnodeError, UsageError } from "../util/errors.ts";
import {
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  MethodNotFoundError,
  ParseError,
  RequestTimeoutError,
  ResponseTooLargeError,
  RpcError,
  ServerError,
  toRpcError,
} from "./errors.ts";

describe("error classes", () => {
  it("carry geth's codes, as static and instance fields", () => {
    const cases: [RpcError, number, number, string][] = [
      [new ParseError(), ParseError.code, -32700, "parse error"],
      [new InvalidRequestError(), InvalidRequestError.code, -32600, "invalid request"],
      [
        new MethodNotFoundError("eth_foo"),
        MethodNotFoundError.code,
        -32601,
        "the method eth_foo does not exist/is not available",
      ],
      [new InvalidParamsError("non-array args"), InvalidParamsError.code, -32602, "non-array args"],
      [new InternalError(), InternalError.code, -32603, "method handler crashed"],
      [new ServerError("header not found"), ServerError.code, -32000, "header not found"],
      [new RequestTimeoutError(), RequestTimeoutError.code, -32002, "request timed out"],
      [new ResponseTooLargeError(), ResponseTooLargeError.code, -32003, "response too large"],
    ];
    for (const [err, staticCode, code, message] of cases) {
      assert.equal(staticCode, code);
      assert.equal(err.rpcCode, code);
      assert.equal(err.message, message);
      assert.ok(err instanceof RpcError && err instanceof Error);
      assert.equal("data" in err, false, `${err.name} must have no data`);
    }
    assert.equal(new InvalidRequestError("empty batch").message, "empty batch");
  });

  it("name themselves after their class", () => {
    assert.equal(new ParseError().name, "ParseError");
    assert.equal(new ServerError("x").name, "ServerError");
  });
});

describe("toRpcError", () => {
  it("keeps an RpcError's code and message, data only when set", () => {
    assert.deepEqual(toRpcError(new InvalidParamsError("bad")), { code: -32602, message: "bad" });
    assert.deepEqual(toRpcError(new RpcError(3, "execution reverted", "0x1234")), {
      code: 3,
      message: "execution reverted",
      data: "0x1234",
    });
  });

  it("maps plain errors to -32000 and non-errors to -32603", () => {
    assert.deepEqual(toRpcError(new Error("header not found")), {
      code: -32000,
      message: "header not found",
    });
    assert.deepEqual(toRpcError(new TypeError("x is undefined")), {
      code: -32000,
      message: "x is undefined",
    });
    assert.deepEqual(toRpcError("boom"), { code: -32603, message: "method handler crashed" });
    assert.deepEqual(toRpcError(undefined), { code: -32603, message: "method handler crashed" });
  });

  it("answers by the error's code: an rpc code with its JSON-RPC code, any other -32000", () => {
    class Refused extends RpcError {
      override readonly code = "DEV_REQUEST";
    }
    assert.deepEqual(toRpcError(new Refused(-32602, "The timestamp is too big")), {
      code: -32602,
      message: "The timestamp is too big",
    });
    assert.deepEqual(toRpcError(new UsageError("--port: not a port")), {
      code: -32000,
      message: "--port: not a port",
    });
    class Stopped extends FlashnodeError {
      readonly code = "TRACE_STOPPED";
    }
    assert.deepEqual(toRpcError(new Stopped("execution timeout")), {
      code: -32000,
      message: "execution timeout",
    });
  });

  it("reads no property by convention: a plain error with an rpcCode is a plain error", () => {
    const sniffed = Object.assign(new Error("looks like -32602"), { rpcCode: -32602, data: "0x" });
    assert.deepEqual(toRpcError(sniffed), { code: -32000, message: "looks like -32602" });
  });

  it("answers an error that crossed a channel as the thrower's side would have", () => {
    const cases: unknown[] = [
      new InvalidParamsError("bad", { field: 1 }),
      new RpcError(3, "execution reverted", "0x1234"),
      new UsageError("--port: not a port"),
      new TypeError("x is undefined"),
      Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" }),
    ];
    for (const e of cases) {
      const crossed = new RemoteError(toWire(e));
      assert.deepEqual(toRpcError(crossed), toRpcError(e), String(e));
    }
  });
});
