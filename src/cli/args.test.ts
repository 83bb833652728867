import assert from "node:assert/strict";
import { test } from "node:test";
import { jsonErrorReason } from "./args.ts";

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
