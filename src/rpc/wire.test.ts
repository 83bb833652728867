import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Envelope } from "./wire.ts";
import {
  encodeRpcError,
  firstValueEnd,
  goFold,
  goJsonString,
  goQuote,
  scanEnvelope,
  skipValue,
  utf8Length,
} from "./wire.ts";

function scan(text: string): Envelope {
  const env: Envelope = {
    version: "",
    id: undefined,
    method: "",
    paramsKey: undefined,
    hasResultOrError: false,
  };
  assert.equal(scanEnvelope(text, 0, 0, env), text.length);
  return env;
}

describe("scanEnvelope", () => {
  it("keeps the raw id text and decodes string fields", () => {
    const env = scan(
      '{ "id" : 1.50 , "method":"eth_x\\u0041", "jsonrpc":"2.0", "params":[{"a":"]"}] }',
    );
    assert.deepEqual(env, {
      version: "2.0",
      id: "1.50",
      method: "eth_xA",
      paramsKey: "params",
      hasResultOrError: false,
    });
  });

  it("folds keys like Go and flags results", () => {
    const env = scan('{"ID":"a","Params":null,"RESULT":1,"jsonrpc":7}');
    assert.equal(env.id, '"a"');
    assert.equal(env.paramsKey, "Params");
    assert.equal(env.hasResultOrError, true);
    assert.equal(env.version, "");
  });
});

describe("value scanning", () => {
  it("skips strings with escaped quotes and nested containers", () => {
    const text = '["a\\"]\\\\",{"b":[1,{}]}] tail';
    assert.equal(skipValue(text, 0, 0), text.indexOf(" tail"));
    assert.equal(skipValue("12.5e3,", 0, 0), 6);
  });

  it("finds the end of the first value as Go's decoder", () => {
    assert.equal(firstValueEnd("{} x", 0), 2);
    assert.equal(firstValueEnd("01", 0), 1);
    assert.equal(firstValueEnd("-1.5e+3x", 0), 7);
    assert.equal(firstValueEnd("truex", 0), 4);
    assert.equal(firstValueEnd("1.", 0), -1);
    assert.equal(firstValueEnd('{"a', 0), -1);
    assert.equal(firstValueEnd("x", 0), -1);
  });
});

describe("Go string encodings", () => {
  it("goJsonString escapes HTML characters, controls and lone surrogates", () => {
    assert.equal(goJsonString("plain"), '"plain"');
    assert.equal(goJsonString("<&>\b\f\t\u001f"), '"\\u003c\\u0026\\u003e\\b\\f\\t\\u001f"');
    assert.equal(goJsonString("\u2029😀\ud800"), '"\\u2029😀\ufffd"');
  });

  it("goQuote matches strconv.Quote", () => {
    assert.equal(goQuote('0x"zz\\'), '"0x\\"zz\\\\"');
    assert.equal(goQuote("\u0007\u000b\u007f"), '"\\a\\v\\x7f"');
    assert.equal(goQuote("é😀\u00a0\u200b"), '"é😀\\u00a0\\u200b"');
    assert.equal(goQuote("\u{e0001}"), '"\\U000e0001"');
  });

  it("utf8Length counts Go bytes", () => {
    assert.equal(utf8Length("abc"), 3);
    assert.equal(utf8Length("é€😀"), 2 + 3 + 4);
    assert.equal(utf8Length("\ud800"), 3);
  });

  it("goFold folds ASCII case and the Kelvin sign / long s", () => {
    assert.equal(goFold("JſON\u212A"), "jsonk");
  });
});

describe("encodeRpcError", () => {
  it("writes code, message and optional data in geth's order", () => {
    assert.equal(
      encodeRpcError({ code: -32000, message: "header not found" }),
      '{"code":-32000,"message":"header not found"}',
    );
    assert.equal(
      encodeRpcError({ code: 3, message: "execution reverted", data: "0xab" }),
      '{"code":3,"message":"execution reverted","data":"0xab"}',
    );
  });

  it("escapes the message as Go's json.Marshal does", () => {
    assert.equal(
      encodeRpcError({ code: 1, message: 'a<b>&"\\\n\u2028\u0001' }),
      '{"code":1,"message":"a\\u003cb\\u003e\\u0026\\"\\\\\\n\\u2028\\u0001"}',
    );
  });

  it("drops data that cannot be serialized", () => {
    assert.equal(encodeRpcError({ code: 1, message: "m", data: 1n }), '{"code":1,"message":"m"}');
  });
});
