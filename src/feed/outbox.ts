// Bounded sending to one WebSocket client. A client that stops reading is disconnected, not
// buffered for without bound: Base's websocket-proxy drops laggards, geth cuts a connection
// whose writes stall.

/** What the outbox needs of a socket (the `ws` WebSocket satisfies it). */
export type SendSocket = {
  readonly bufferedAmount: number;
  /**
   * Text frames for JSON (bytes given are UTF-8 JSON: a spliced RPC answer); binary frames only
   * for what asks for them (a brotli-compressed flashblock).
   */
  send(
    data: string | Buffer,
    options: { readonly binary: boolean },
    cb: (err?: Error) => void,
  ): void;
  terminate(): void;
};

export type SendLimits = {
  /** Bytes queued in user space (not yet taken by the kernel) above which the client is dropped. */
  readonly maxBufferedBytes: number;
  /** Messages sent but not yet flushed above which the client is dropped. */
  readonly maxQueuedMessages: number;
};

/** The raw flashblocks stream: ~5 messages/s, so 256 queued is ~50 s behind. */
export const STREAM_SEND_LIMITS: SendLimits = {
  maxBufferedBytes: 4 * 1024 * 1024,
  maxQueuedMessages: 256,
};

/**
 * JSON-RPC connections: room for one maximum batch response (25 MB, rpc/limits.ts) plus
 * notifications queued behind it while it drains.
 */
export const RPC_SEND_LIMITS: SendLimits = {
  maxBufferedBytes: 32 * 1024 * 1024,
  maxQueuedMessages: 1024,
};

const TEXT_FRAME = { binary: false } as const;
const BINARY_FRAME = { binary: true } as const;

export class Outbox {
  readonly #socket: SendSocket;
  readonly #limits: SendLimits;
  readonly #onDrop: () => void;
  #queued = 0;
  #dropped = false;

  constructor(socket: SendSocket, limits: SendLimits, onDrop: () => void = () => {}) {
    this.#socket = socket;
    this.#limits = limits;
    this.#onDrop = onDrop;
  }

  /** Messages handed to the socket whose write has not completed. */
  get queued(): number {
    return this.#queued;
  }

  get dropped(): boolean {
    return this.#dropped;
  }

  /**
   * Sends (a text frame; `binary`: a binary one), or drops the client if it is too far behind;
   * false when nothing was sent.
   */
  send(text: string | Buffer, binary = false): boolean {
    if (this.#dropped) return false;
    if (
      this.#queued >= this.#limits.maxQueuedMessages ||
      this.#socket.bufferedAmount > this.#limits.maxBufferedBytes
    ) {
      this.drop();
      return false;
    }
    this.#queued++;
    this.#socket.send(text, binary ? BINARY_FRAME : TEXT_FRAME, this.#written);
    return true;
  }

  /** Terminates the connection (no close handshake: it would queue behind the backlog). */
  drop(): void {
    if (this.#dropped) return;
    this.#dropped = true;
    this.#socket.terminate();
    this.#onDrop();
  }

  // One bound callback for every send: the count is all it tracks.
  readonly #written = (): void => {
    this.#queued--;
  };
}
