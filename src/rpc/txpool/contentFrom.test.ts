import assert from "node:assert/strict";
import { test } from "node:test";
import { result } from "../../../test/utils/fixtureChain.ts";
import {
  BLOB_SENDER,
  fixtureTransactions,
  gethPoolRendering,
  poolCaller,
  SENDER_A,
} from "../../../test/utils/fixturePool.ts";

test("txpool_contentFrom: one sender's pending and queued, by nonce; nobody's is empty", async () => {
  const t = await fixtureTransactions();
  const pool = await poolCaller({
    pending: [t.legacy, t.fromMempool, t.blob],
    queued: [t.accessList, t.dynamicFee],
  });
  try {
    const geth = gethPoolRendering();
    assert.deepEqual(
      await result(pool.call, "txpool_contentFrom", [SENDER_A.toUpperCase().replace("0X", "0x")]),
      {
        pending: {
          "0": geth.get("0xb55b6dfd4ba0bb2b00283b0e84cda496c90bc7c5ae9025e07edc3a7fbaf6a269"),
        },
        queued: {
          "2": geth.get("0x2a47fd29365246f5bc1ba9209d2f8c27ba501f78a2e697d470448ddf799a98d4"),
          "3": geth.get("0x8b63a0e2744c3c93a84d0c3ac637855d182db2aa46ea39e7bfa5df54ac98b72c"),
        },
      },
    );
    // The fixture's own call; and a blob sender's transactions are not listed (geth's blob pool).
    const none = { pending: {}, queued: {} };
    assert.deepEqual(
      await result(pool.call, "txpool_contentFrom", ["0x0000000000000000000000000000000000000000"]),
      none,
    );
    assert.deepEqual(await result(pool.call, "txpool_contentFrom", [BLOB_SENDER]), none);
    const bad = await pool.call("txpool_contentFrom", ["0x1234"]);
    assert.deepEqual(bad.error, {
      code: -32602,
      message: "invalid argument 0: hex string has length 4, want 40 for common.Address",
    });
    const missing = await pool.call("txpool_contentFrom", []);
    assert.deepEqual(missing.error, {
      code: -32602,
      message: "missing value for required argument 0",
    });
  } finally {
    await pool.close();
  }
});
