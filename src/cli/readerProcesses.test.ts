import assert from "node:assert/strict";
import { test } from "node:test";
import { frontendOptions } from "./frontendOptions.ts";
import { resolveOptions } from "./options.ts";
import { readerProcessPlan } from "./readerProcesses.ts";

test("a generated API key reaches the readers through the plan, not this process's environment", () => {
  const before = { ...process.env };
  const values = resolveOptions("serve", ["--rpc-workers", "3"], {}).values;
  const frontend = frontendOptions(values);
  assert.ok(frontend.generatedKey);
  const plan = readerProcessPlan(values, frontend);
  assert.equal(plan.readerProcesses, 3);
  assert.deepEqual(plan.process, { kind: "primary" });
  assert.deepEqual(plan.readerEnv, { FLASHNODE_API_KEYS: [...frontend.apiKeys.keys()][0] });
  assert.deepEqual({ ...process.env }, before, "this process's environment is left alone");

  const one = resolveOptions("serve", ["--rpc-workers", "1"], {}).values;
  assert.deepEqual(readerProcessPlan(one, frontendOptions(one)).readerEnv, {});
  const given = resolveOptions(
    "serve",
    ["--rpc-workers", "2", "--api-key", "team-key-01"],
    {},
  ).values;
  assert.deepEqual(readerProcessPlan(given, frontendOptions(given)).readerEnv, {});
});
