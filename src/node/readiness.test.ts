import assert from "node:assert/strict";
import { test } from "node:test";
import { tempDatadir } from "../../test/utils/fixtures.ts";
import { createChainStore } from "../store/chainStore.ts";
import { openKvEnv } from "../store/lmdb.ts";
import { storeReadiness } from "./readiness.ts";

test("readiness names an empty store and a closed one", async () => {
  const env = openKvEnv(tempDatadir("readiness"));
  const store = createChainStore(env);
  assert.deepEqual(storeReadiness(env, store), ["no head block"]);
  await env.close();
  assert.deepEqual(storeReadiness(env, store), ["store is closed"]);
});
