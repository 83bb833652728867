import assert from "node:assert/strict";
import { test } from "node:test";
import { isOperatorError, UsageError } from "./errors.ts";

test("operator errors are one line; bugs keep their stack", () => {
  assert.equal(isOperatorError(new UsageError("bad flag")), true);
  const enoent = Object.assign(new Error("ENOENT: no such file"), { code: "ENOENT" });
  assert.equal(isOperatorError(enoent), true, "a system error names what the operator must fix");
  const internal = Object.assign(new TypeError("bad arg"), { code: "ERR_INVALID_ARG_TYPE" });
  assert.equal(isOperatorError(internal), false, "Node's ERR_* codes are programming errors");
  assert.equal(isOperatorError(new TypeError("x is undefined")), false);
  assert.equal(isOperatorError("a string"), false);
});
