// The in-process ChainFeed: producers emit, transports listen.
import type {
  ChainFeed,
  FlashblockEvent,
  LogEvent,
  NewHeadEvent,
  PreconfirmedEvent,
  Unsubscribe,
} from "./types.ts";

function channel<T>() {
  const listeners = new Set<(value: T) => void>();
  return {
    on(listener: (value: T) => void): Unsubscribe {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    emit(value: T): void {
      for (const l of listeners) {
        try {
          l(value);
        } catch (e) {
          console.error("feed listener failed", e);
        }
      }
    },
  };
}

export type FeedHub = ChainFeed & {
  emitFlashblock(event: FlashblockEvent): void;
  emitNewHead(event: NewHeadEvent): void;
  emitLogs(logs: readonly LogEvent[]): void;
  emitPreconfirmed(event: PreconfirmedEvent): void;
};

export function createFeedHub(): FeedHub {
  const flashblocks = channel<FlashblockEvent>();
  /** The newest block's flashblocks, from its index 0 (a block joined mid-way is not kept). */
  let current: FlashblockEvent[] = [];
  const record = (ev: FlashblockEvent) => {
    if (ev.index === 0) current = [ev];
    else if (current[0]?.blockNumber === ev.blockNumber) current.push(ev);
    else current = [];
  };
  const heads = channel<NewHeadEvent>();
  const logs = channel<readonly LogEvent[]>();
  const preconfirmed = channel<PreconfirmedEvent>();
  return {
    onFlashblock: flashblocks.on,
    onNewHead: heads.on,
    onLogs: logs.on,
    onPreconfirmed: preconfirmed.on,
    currentFlashblocks: () => current,
    emitFlashblock(ev) {
      record(ev);
      flashblocks.emit(ev);
    },
    emitNewHead: heads.emit,
    emitLogs: logs.emit,
    emitPreconfirmed: preconfirmed.emit,
  };
}
