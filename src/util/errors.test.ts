import assert from "node:assert/strict";
import { test } from "node:test";
import {
  ERROR_REACH,
  type ErrorCode,
  type ErrorReach,
  FlashnodeError,
  houseError,
  isErrorCode,
  isOperatorError,
  RpcError,
  reachOf,
  SystemError,
  UsageError,
} from "./errors.ts";

test("operator errors are one line; bugs keep their stack", () => {
  assert.equal(isOperatorError(new UsageError("bad flag")), true);
  const enoent = Object.assign(new Error("ENOENT: no such file"), { code: "ENOENT" });
  assert.equal(isOperatorError(enoent), true, "a system error names what the operator must fix");
  const internal = Object.assign(new TypeError("bad arg"), { code: "ERR_INVALID_ARG_TYPE" });
  assert.equal(isOperatorError(internal), false, "Node's ERR_* codes are programming errors");
  assert.equal(isOperatorError(new TypeError("x is undefined")), false);
  assert.equal(isOperatorError("a string"), false);
});

test("the reach comes from the code's entry in the table, not from the class's properties", () => {
  assert.equal(reachOf(new UsageError("bad flag")), "operator");
  assert.equal(reachOf(new RpcError(-32602, "bad params")), "rpc");
  assert.equal(reachOf(new Error("plain")), "internal");
  class Stopped extends FlashnodeError {
    readonly code = "TRACE_STOPPED";
  }
  assert.equal(reachOf(new Stopped("execution timeout")), "internal");
  assert.equal(isOperatorError(new Stopped("execution timeout")), false);
  // A property named like the old conventions no longer classifies anything.
  assert.equal(reachOf(Object.assign(new Error("x"), { rpcCode: -32602 })), "internal");
});

test("a system error becomes a SystemError where it is caught, its cause kept", () => {
  const enospc = Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
  const h = houseError(enospc);
  assert.ok(h instanceof SystemError);
  assert.equal(h.code, "SYSTEM");
  assert.equal(h.message, enospc.message);
  assert.equal(h.cause, enospc);
  const usage = new UsageError("bad flag");
  assert.equal(houseError(usage), usage);
  assert.equal(houseError(new TypeError("x is undefined")), undefined);
});

test("codes that crossed a channel are parsed against the table", () => {
  assert.equal(isErrorCode("USAGE"), true);
  assert.equal(isErrorCode("RPC"), true);
  assert.equal(isErrorCode("ENOENT"), false);
  assert.equal(isErrorCode("toString"), false, "only the table's own keys");
  assert.equal(isErrorCode(-32000), false);
});

test("every code has a reach, and one of the three", () => {
  for (const [code, reach] of Object.entries(ERROR_REACH))
    assert.ok(["rpc", "operator", "internal"].includes(reach), `${code}: ${reach}`);
});

// Compile-time checks: `npm run typecheck` fails if any of these stops being an error.
export function typeLevelChecks(): void {
  // A new code added to the union without its entry in the table does not compile.
  // @ts-expect-error: "NEW_CODE" is missing from ERROR_REACH
  const withNewCode: Record<ErrorCode | "NEW_CODE", ErrorReach> = ERROR_REACH;
  // A class whose code is not in the union does not compile.
  class Unlisted extends FlashnodeError {
    // @ts-expect-error: "NOT_A_CODE" is not an ErrorCode
    readonly code = "NOT_A_CODE";
  }
  // A reach that is not one of the three does not compile.
  // @ts-expect-error: "log" is not an ErrorReach
  const odd: ErrorReach = "log";
  void [withNewCode, Unlisted, odd];
}
