import assert from "node:assert/strict";
import { test } from "node:test";
import { result } from "../../../test/utils/fixtureChain.ts";
import { fixtureTransactions, poolCaller } from "../../../test/utils/fixturePool.ts";

test("txpool_inspect: geth's one-line summaries, fee cap as the price of a 1559 transaction", async () => {
  const t = await fixtureTransactions();
  const pool = await poolCaller({
    pending: [t.legacy, t.fromMempool, t.blob],
    queued: [t.accessList, t.dynamicFee],
  });
  try {
    assert.deepEqual(await result(pool.call, "txpool_inspect"), {
      pending: {
        "0x0c2c51a0990AeE1d73C1228de158688341557508": {
          "0": "0xaa00000000000000000000000000000000000000: 10 wei + 25000 gas × 27399064 wei",
        },
        "0x14e46043e63D0E3cdcf2530519f4cFAf35058Cb2": {
          "0": "0x7Dcd17433742F4c0Ca53122aB541D0Ba67fC27Df: 1000 wei + 21000 gas × 27399563 wei",
        },
      },
      queued: {
        "0x0c2c51a0990AeE1d73C1228de158688341557508": {
          "2": "0x7Dcd17433742F4c0Ca53122aB541D0Ba67fC27Df: 0 wei + 90000 gas × 27399563 wei",
          "3": "0x7Dcd17433742F4c0Ca53122aB541D0Ba67fC27Df: 0 wei + 80000 gas × 27399563 wei",
        },
      },
    });
  } finally {
    await pool.close();
  }
});
