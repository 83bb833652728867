// A timeline fed the flashblocks of one block, for the flashnode_* method tests.
import { TxTimeline } from "../../src/pending/txTimeline.ts";
import type { FlashblockUpdate, PendingTransaction } from "../../src/pending/types.ts";
import { createDispatcher } from "../../src/rpc/dispatch.ts";
import type { MethodRegistry } from "../../src/rpc/method.ts";

export function testFlashblock(
  number: number,
  index: number,
  publishedAt: number,
  transactions: PendingTransaction[],
  gasUsed: bigint,
): FlashblockUpdate {
  return {
    kind: "flashblock",
    base: {
      number,
      parentHash: new Uint8Array(32),
      timestamp: 0n,
      gasLimit: 60_000_000n,
      baseFeePerGas: 1n,
      coinbase: new Uint8Array(20),
      prevRandao: new Uint8Array(32),
      parentBeaconBlockRoot: new Uint8Array(32),
      extraData: new Uint8Array(0),
      blobGasPrice: 1n,
      excessBlobGas: 0n,
    },
    index,
    transactions,
    receipts: [],
    diff: { accounts: [], storage: [], wiped: [], code: [] },
    gasUsed,
    blobGasUsed: 0n,
    logsBloom: new Uint8Array(256),
    receiptsRoot: new Uint8Array(32),
    transactionsRoot: new Uint8Array(32),
    wireJson: "{}",
    buildMs: 0.5,
    publishedAt,
  };
}

/** Block 7: a deposit alone in flashblock 0 (OP stack), a user transaction (0x22…) in flashblock 1. */
export function oneBlockTimeline(): TxTimeline {
  const t = new TxTimeline();
  t.flashblock(
    testFlashblock(
      7,
      0,
      10_000,
      [{ hash: new Uint8Array(32).fill(0x11), raw: Uint8Array.of(0x7e) }],
      40_000n,
    ),
  );
  t.flashblock(
    testFlashblock(
      7,
      1,
      10_200.04,
      [{ hash: new Uint8Array(32).fill(0x22), raw: Uint8Array.of(0x02), receivedAt: 10_112.52 }],
      61_000n,
    ),
  );
  return t;
}

export function callMethods(methods: MethodRegistry) {
  const dispatcher = createDispatcher(methods);
  return async (method: string, params: unknown[]) => {
    const out = await dispatcher.handle(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), {
      tier: "public",
    });
    if (typeof out !== "string") throw new Error("no answer");
    return JSON.parse(out) as { result?: unknown; error?: { code: number; message: string } };
  };
}
