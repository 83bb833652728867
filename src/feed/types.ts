// What the chain publishes to streaming clients. Producers (the sequencer side) emit these;
// transports (WebSocket) subscribe. Payloads are pre-rendered JSON text: rendered once, sent to
// every subscriber as is.

export type Unsubscribe = () => void;

/** One flashblock in Base's wire format (`payload_id`, `index`, `base?`, `diff`, `metadata`). */
export type FlashblockEvent = {
  readonly blockNumber: number;
  readonly index: number;
  /** The whole wire message, JSON text. */
  readonly json: string;
};

/** A sealed block's header, rendered as geth's `newHeads` notification result (JSON text). */
export type NewHeadEvent = {
  readonly blockNumber: number;
  readonly json: string;
};

/** One log of a sealed block, with what filters match on, rendered as geth's log object. */
export type LogEvent = {
  readonly address: Uint8Array;
  readonly topics: readonly Uint8Array[];
  readonly json: string;
};

export type ChainFeed = {
  onFlashblock(listener: (event: FlashblockEvent) => void): Unsubscribe;
  onNewHead(listener: (event: NewHeadEvent) => void): Unsubscribe;
  /** All logs of one sealed block, in order. */
  onLogs(listener: (logs: readonly LogEvent[]) => void): Unsubscribe;
};
