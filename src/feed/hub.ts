// The in-process ChainFeed: producers emit, transports listen.
import type { Logger } from "../log/logger.ts";
import type {
  ChainFeed,
  FlashblockEvent,
  LogEvent,
  NewHeadEvent,
  PreconfirmedEvent,
  Unsubscribe,
} from "./types.ts";

function channel<T>(logger: Logger, name: string) {
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
          // One listener's fault must not keep the event from the others.
          logger.error({ err: e, event: name }, "feed listener failed");
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

export function createFeedHub(logger: Logger): FeedHub {
  const flashblocks = channel<FlashblockEvent>(logger, "flashblock");
  /** The newest block's flashblocks, from its index 0 (a block joined mid-way is not kept). */
  let current: FlashblockEvent[] = [];
  const record = (ev: FlashblockEvent) => {
    if (ev.index === 0) current = [ev];
    else if (current[0]?.blockNumber === ev.blockNumber) current.push(ev);
    else current = [];
  };
  const heads = channel<NewHeadEvent>(logger, "newHead");
  const logs = channel<readonly LogEvent[]>(logger, "logs");
  const preconfirmed = channel<PreconfirmedEvent>(logger, "preconfirmed");
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
