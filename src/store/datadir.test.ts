import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { tempDatadir } from "../../test/utils/fixtures.ts";
import { missingRoot } from "./datadir.ts";

test("missingRoot: the outermost directory a start would create", () => {
  const dir = tempDatadir("missing-root");
  assert.equal(missingRoot(dir), undefined, "it exists");
  assert.equal(missingRoot(join(dir, "a")), join(dir, "a"));
  assert.equal(missingRoot(join(dir, "a", "b", "c")), join(dir, "a"), "mkdir -p creates a first");
  mkdirSync(join(dir, "a"));
  assert.equal(missingRoot(join(dir, "a", "b", "c")), join(dir, "a", "b"));
});
