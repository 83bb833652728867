import assert from "node:assert/strict";
import { test } from "node:test";
import { callLimitOptions } from "./callLimitOptions.ts";
import { resolveOptions } from "./options.ts";

test("--rpc-gascap and --rpc-evmtimeout: geth's defaults, flags and FLASHNODE_* variables", () => {
  for (const command of ["dev", "serve", "replica"] as const)
    assert.deepEqual(callLimitOptions(resolveOptions(command, [], {}).values), {
      gasCap: 50_000_000n,
      evmTimeoutMs: 5_000,
    });
  const flags = resolveOptions("serve", ["--rpc-gascap", "0", "--rpc-evmtimeout", "250ms"], {});
  assert.deepEqual(callLimitOptions(flags.values), { gasCap: 0n, evmTimeoutMs: 250 });
  const env = { FLASHNODE_RPC_GASCAP: "100000", FLASHNODE_RPC_EVMTIMEOUT: "0" };
  assert.deepEqual(callLimitOptions(resolveOptions("dev", [], env).values), {
    gasCap: 100_000n,
    evmTimeoutMs: 0,
  });
  // A bare number is seconds, as geth's durations need a unit.
  const bare = resolveOptions("replica", ["--rpc-evmtimeout", "2"], {});
  assert.equal(callLimitOptions(bare.values).evmTimeoutMs, 2_000);
  assert.throws(
    () => resolveOptions("serve", ["--rpc-gascap=-1"], {}),
    /--rpc-gascap must be a whole number/,
  );
  assert.throws(
    () => callLimitOptions(resolveOptions("serve", ["--rpc-evmtimeout", "soon"], {}).values),
    /--rpc-evmtimeout must be a duration/,
  );
});
