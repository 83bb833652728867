import assert from "node:assert/strict";
import { test } from "node:test";
import { result } from "../../../test/utils/fixtureChain.ts";
import { fixtureTransactions, poolCaller } from "../../../test/utils/fixturePool.ts";

test("txpool_status: pending and queued counts as hex, blob transactions counted (geth)", async () => {
  const t = await fixtureTransactions();
  const pool = await poolCaller({
    pending: [t.legacy, t.fromMempool, t.blob],
    queued: [t.accessList, t.dynamicFee],
  });
  try {
    assert.deepEqual(await result(pool.call, "txpool_status"), { pending: "0x3", queued: "0x2" });
    // Extra parameters are refused as geth refuses them.
    const extra = await pool.call("txpool_status", [1]);
    assert.deepEqual(extra.error, { code: -32602, message: "too many arguments, want at most 0" });
  } finally {
    await pool.close();
  }
  const empty = await poolCaller({ pending: [], queued: [] });
  try {
    assert.deepEqual(await result(empty.call, "txpool_status"), { pending: "0x0", queued: "0x0" });
  } finally {
    await empty.close();
  }
});
