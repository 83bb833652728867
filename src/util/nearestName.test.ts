import assert from "node:assert/strict";
import { test } from "node:test";
import { didYouMean, editDistance, nearest } from "./nearestName.ts";

test("edit distance", () => {
  assert.equal(editDistance("port", "port"), 0);
  assert.equal(editDistance("prot", "port"), 2);
  assert.equal(editDistance("", "abc"), 3);
  assert.equal(editDistance("datadri", "datadir"), 2);
});

test("the nearest known name, only when it is near", () => {
  const flags = ["port", "host", "datadir", "block-time", "flashblock-interval"];
  assert.equal(nearest("prot", flags), "port");
  assert.equal(nearest("datadri", flags), "datadir");
  assert.equal(nearest("block", flags), "block-time", "a prefix counts");
  assert.equal(nearest("zzzzzzzz", flags), undefined);
  assert.equal(didYouMean("hots", flags, "--"), " (did you mean --host?)");
  assert.equal(didYouMean("qqqqqqq", flags), "");
});
