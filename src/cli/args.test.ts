import assert from "node:assert/strict";
import { test } from "node:test";
import { isLocalHost, jsonErrorReason } from "./args.ts";

test("a JSON syntax error, short: no quoted text, a line and column", () => {
  const reason = (text: string) => {
    try {
      JSON.parse(text);
    } catch (e) {
      return jsonErrorReason(e, text);
    }
    return "parsed";
  };
  assert.equal(reason("not json\nat all\n"), "unexpected token 'o'");
  assert.equal(
    reason('{\n  "a": 1,\n}'),
    "expected double-quoted property name at line 3 column 1",
  );
  assert.equal(reason(""), "unexpected end of JSON input");
});

test("local hosts: loopback addresses and localhost; every other address is not", () => {
  for (const h of ["127.0.0.1", "127.0.0.2", "::1", "localhost"])
    assert.equal(isLocalHost(h), true, h);
  for (const h of ["0.0.0.0", "::", "192.0.2.1", "node-1.example.com"])
    assert.equal(isLocalHost(h), false, h);
});
