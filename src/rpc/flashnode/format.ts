// How flashnode_* methods render the timeline: block numbers, indexes and gas as hex quantities
// (as eth_* do), times as plain JSON numbers of epoch milliseconds (0.1 ms resolution).
import type { BlockSummary, TxTimes } from "../../pending/txTimeline.ts";
import { quantity } from "../../util/hex.ts";

export function ms(value: number): number {
  return Math.round(value * 10) / 10;
}

export function msOrNull(value: number | undefined): number | null {
  return value === undefined ? null : ms(value);
}

export function txTimesJson(t: TxTimes) {
  return {
    hash: t.hash,
    blockNumber: quantity(t.blockNumber),
    blockHash: t.blockHash ?? null,
    transactionIndex: quantity(t.transactionIndex),
    flashblockIndex: t.flashblockIndex,
    deposit: t.deposit,
    receivedAt: msOrNull(t.receivedAt),
    preconfirmedAt: ms(t.preconfirmedAt),
    sealedAt: msOrNull(t.sealedAt),
    preconfirmLatencyMs: t.receivedAt === undefined ? null : ms(t.preconfirmedAt - t.receivedAt),
  };
}

export function blockSummaryJson(b: BlockSummary) {
  return {
    number: quantity(b.number),
    hash: b.hash ?? null,
    sealedAt: msOrNull(b.sealedAt),
    transactions: b.transactionCount,
    flashblockCount: b.flashblockCount,
    flashblocks: b.flashblocks.map((f) => ({
      index: f.index,
      transactions: f.transactions,
      deposits: f.deposits,
      gasUsed: quantity(f.gasUsed),
      publishedAt: ms(f.publishedAt),
    })),
  };
}
