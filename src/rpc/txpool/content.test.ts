import assert from "node:assert/strict";
import { test } from "node:test";
import { result } from "../../../test/utils/fixtureChain.ts";
import {
  fixtureTransactions,
  gethPoolRendering,
  poolCaller,
} from "../../../test/utils/fixturePool.ts";

test("txpool_content: sender → nonce → geth's pending rendering; gaps queued; blobs unlisted", async () => {
  const t = await fixtureTransactions();
  const pool = await poolCaller({
    pending: [t.legacy, t.fromMempool, t.blob],
    queued: [t.accessList, t.dynamicFee],
  });
  try {
    const geth = gethPoolRendering();
    const tx = (hash: string) => {
      const rendered = geth.get(hash);
      assert.ok(rendered !== undefined, hash);
      return rendered;
    };
    assert.deepEqual(await result(pool.call, "txpool_content"), {
      pending: {
        // Checksummed keys, as geth's account.Hex().
        "0x0c2c51a0990AeE1d73C1228de158688341557508": {
          "0": tx("0xb55b6dfd4ba0bb2b00283b0e84cda496c90bc7c5ae9025e07edc3a7fbaf6a269"),
        },
        "0x14e46043e63D0E3cdcf2530519f4cFAf35058Cb2": {
          "0": tx("0x20682a10a61c33badea54ae0b0b1401068b8ab1438c245fc8f1e85d4620f2886"),
        },
      },
      queued: {
        "0x0c2c51a0990AeE1d73C1228de158688341557508": {
          "2": tx("0x2a47fd29365246f5bc1ba9209d2f8c27ba501f78a2e697d470448ddf799a98d4"),
          "3": tx("0x8b63a0e2744c3c93a84d0c3ac637855d182db2aa46ea39e7bfa5df54ac98b72c"),
        },
      },
    });
  } finally {
    await pool.close();
  }
});

test("txpool_content: an empty pool; a node without one says why", async () => {
  const empty = await poolCaller({ pending: [], queued: [] });
  try {
    assert.deepEqual(await result(empty.call, "txpool_content"), { pending: {}, queued: {} });
  } finally {
    await empty.close();
  }
  const none = await poolCaller(undefined);
  try {
    const reply = await none.call("txpool_content");
    assert.equal(reply.error?.code, -32000);
    assert.match(reply.error?.message ?? "", /not served by this node/);
  } finally {
    await none.close();
  }
});
