import assert from "node:assert/strict";
import { test } from "node:test";
import { tempDatadir } from "../../test/utils/fixtures.ts";
import { createChainStore } from "../store/chainStore.ts";
import { openKvEnv } from "../store/lmdb.ts";
import { pendingReadiness, storeReadiness } from "./readiness.ts";

test("readiness names an empty store and a closed one", async () => {
  const env = openKvEnv(tempDatadir("readiness"));
  const store = createChainStore(env);
  assert.deepEqual(storeReadiness(env, store), ["no head block"]);
  await env.close();
  assert.deepEqual(storeReadiness(env, store), ["store is closed"]);
});

test("pending is fresh within the stale bound, stale past it or before the first flashblock", () => {
  assert.deepEqual(pendingReadiness(10_000, 10_200, 1000), []);
  assert.deepEqual(pendingReadiness(10_000, 11_000, 1000), [], "at the bound");
  assert.deepEqual(pendingReadiness(10_000, 12_345, 1000), [
    "pending is stale: last flashblock 2345 ms ago",
  ]);
  assert.deepEqual(pendingReadiness(undefined, 12_345, 1000), [
    "pending is stale: no flashblock yet",
  ]);
});
