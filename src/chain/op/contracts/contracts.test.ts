import assert from "node:assert/strict";
import { test } from "node:test";
import { compileContracts } from "./compile.ts";
import committed from "./contracts.json" with { type: "json" };

test("the committed predeploy bytecode is the compilation of the sources beside it", () => {
  // Regenerate with: node --import tsx scripts/op-contracts.ts
  assert.deepEqual(compileContracts(), committed);
});
