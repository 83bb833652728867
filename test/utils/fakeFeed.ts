// An in-memory ChainFeed for tests: emit by hand, count listeners to catch leaks.

import type {
  ChainFeed,
  FlashblockEvent,
  LogEvent,
  NewHeadEvent,
  PreconfirmedEvent,
  Unsubscribe,
} from "../../src/feed/types.ts";

export type FakeFeed = ChainFeed & {
  emitFlashblock(event: FlashblockEvent): void;
  emitNewHead(event: NewHeadEvent): void;
  emitLogs(logs: readonly LogEvent[]): void;
  emitPreconfirmed(event: PreconfirmedEvent): void;
  /** Listeners currently attached, all kinds. */
  listenerCount(): number;
};

function channel<T>(): { add(l: (v: T) => void): Unsubscribe; emit(v: T): void; size(): number } {
  const listeners = new Set<(v: T) => void>();
  return {
    add(l) {
      // A wrapper per call, so adding the same function twice gives two listeners.
      const entry = (v: T) => l(v);
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
      };
    },
    emit(v) {
      for (const l of [...listeners]) l(v);
    },
    size: () => listeners.size,
  };
}

export function createFakeFeed(): FakeFeed {
  const flashblocks = channel<FlashblockEvent>();
  const heads = channel<NewHeadEvent>();
  const logs = channel<readonly LogEvent[]>();
  const preconfirmed = channel<PreconfirmedEvent>();
  return {
    onFlashblock: flashblocks.add,
    onNewHead: heads.add,
    onLogs: logs.add,
    onPreconfirmed: preconfirmed.add,
    emitFlashblock: flashblocks.emit,
    emitNewHead: heads.emit,
    emitLogs: logs.emit,
    emitPreconfirmed: preconfirmed.emit,
    listenerCount: () => flashblocks.size() + heads.size() + logs.size() + preconfirmed.size(),
  };
}
