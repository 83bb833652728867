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
  /** The block hash, 0x-hex (block filters report it). */
  readonly hash: string;
  readonly json: string;
};

/** One log of a sealed block, with what filters match on, rendered as geth's log object. */
export type LogEvent = {
  readonly address: Uint8Array;
  readonly topics: readonly Uint8Array[];
  /** The emitting transaction's hash, 0x-hex. */
  readonly transactionHash: string;
  readonly json: string;
  /** A log of a block the chain dropped (evm_revert), rendered with `removed: true`. */
  readonly removed?: boolean;
};

export type ChainFeed = {
  onFlashblock(listener: (event: FlashblockEvent) => void): Unsubscribe;
  /**
   * The block being built's flashblocks so far, from its index 0: what a /flashblocks client
   * joining mid-block is sent first, so it can follow at once (Base's own stream sends only what
   * comes next, and a follower then waits for the next block's index 0).
   */
  currentFlashblocks?(): readonly FlashblockEvent[];
  onNewHead(listener: (event: NewHeadEvent) => void): Unsubscribe;
  /** All logs of one sealed block, in order. */
  onLogs(listener: (logs: readonly LogEvent[]) => void): Unsubscribe;
  /** Each flashblock's newly pre-confirmed transactions and their logs (pending context). */
  onPreconfirmed(listener: (event: PreconfirmedEvent) => void): Unsubscribe;
};

/** What one flashblock pre-confirmed: its new transactions and their logs, in order. */
export type PreconfirmedEvent = {
  readonly blockNumber: number;
  /** 0x-hex transaction hashes. */
  readonly transactionHashes: readonly string[];
  /**
   * Those sent to the node (not a block's deposits), as `newPendingTransactions` reports them:
   * hashes, and each transaction rendered as a pool's (rendered once, when first asked for).
   */
  readonly sent?: { readonly hashes: readonly string[]; json(): readonly string[] };
  /** Rendered with the pending block's context: block hash 32 zero bytes. */
  readonly logs: readonly LogEvent[];
};
