// The client of a Base-format flashblocks stream (a `wss://…flashblocks…/ws` endpoint, or
// flashnode's own `/flashblocks`): decodes each frame (JSON text, or brotli binary), parses it
// into a Flashblock and hands it over; keeps the connection honest and re-dials it.
//
// Liveness, because a stream that stops talking is otherwise indistinguishable from a quiet
// chain (optimism#22816 froze pending for 16 days on a silent socket):
// - a read deadline: no data frame for `readTimeoutMs` closes the connection. Pongs and the
//   server's pings do not count: a proxy whose builder died still answers pings;
// - ping/pong: a ping every `pingIntervalMs`; no pong within `pongTimeoutMs` closes it.
// A closed, failed or silent connection is dialled again after a capped exponential backoff
// with jitter, reset once a connection has delivered flashblocks for `healthyAfterMs`.
import { WebSocket } from "ws";
import type { Logger } from "../log/logger.ts";
import { FlashnodeError } from "../util/errors.ts";
import { bytesToHex } from "../util/hex.ts";
import type { BackoffOptions } from "./backoff.ts";
import { backoffDelay, DEFAULT_BACKOFF } from "./backoff.ts";
import type { Flashblock } from "./flashblock.ts";
import { FlashblockParseError, parseFlashblock } from "./flashblock.ts";
import type { FrameEncoding } from "./flashblockFrame.ts";
import { decodeFrame, FrameDecodeError, MAX_DECODED_FRAME_BYTES } from "./flashblockFrame.ts";

/** Time and timers, injectable so tests drive them. `schedule` returns its canceller. */
export type StreamClock = {
  now(): number;
  schedule(fn: () => void, ms: number): () => void;
};

export const systemClock: StreamClock = {
  now: () => performance.timeOrigin + performance.now(),
  schedule: (fn, ms) => {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

export const DEFAULT_READ_TIMEOUT_MS = 5_000;
export const DEFAULT_PING_INTERVAL_MS = 1_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_HEALTHY_AFTER_MS = 10_000;
/** Base's flashblocks are a few kB; a large block's JSON stays far below this. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;
const SAMPLE_CHARS = 160;
const CLOSE_GRACE_MS = 1_000;

export type DisconnectKind =
  | "read-timeout"
  | "pong-timeout"
  | "remote-close"
  | "connect-failed"
  | "error";

export type DisconnectReason = {
  readonly kind: DisconnectKind;
  readonly message: string;
  /** Whether the connection had opened (false: the dial itself failed). */
  readonly wasOpen: boolean;
  /** The delay before the next dial. */
  readonly retryInMs: number;
};

export type InvalidFrame = {
  readonly code: FrameDecodeError["code"] | FlashblockParseError["code"] | "FRAME_INTERNAL";
  readonly message: string;
  /** The start of the frame (text, or hex of its first bytes), for the log line. */
  readonly sample: string;
};

export type FlashblockStreamHandlers = {
  onFlashblock(fb: Flashblock, receivedAt: number, encoding: FrameEncoding): void;
  onConnect?(): void;
  onDisconnect?(reason: DisconnectReason): void;
  onInvalid?(frame: InvalidFrame): void;
};

export type FlashblockStreamOptions = {
  readonly url: string;
  readonly handlers: FlashblockStreamHandlers;
  readonly readTimeoutMs?: number;
  readonly pingIntervalMs?: number;
  /** Default: the read timeout. */
  readonly pongTimeoutMs?: number;
  readonly connectTimeoutMs?: number;
  readonly healthyAfterMs?: number;
  readonly backoff?: BackoffOptions;
  readonly maxFrameBytes?: number;
  readonly clock?: StreamClock;
  /** In [0, 1): the jitter's source. */
  readonly random?: () => number;
  readonly logger?: Logger;
};

export type FlashblockStreamStats = {
  /** Data frames received (valid or not). */
  frames: number;
  flashblocks: number;
  invalid: number;
  connects: number;
  /** Dials after the first. */
  reconnects: number;
  disconnects: number;
  /** Of which, by why they ended. */
  disconnectsBy: Partial<Record<DisconnectKind, number>>;
  readTimeouts: number;
  pingsMissed: number;
  /** Decoded JSON bytes. */
  bytes: number;
  /** When the last data frame came (the clock's ms); undefined: none yet. */
  lastFrameAt: number | undefined;
};

/** An unusable stream URL: an operator's error, said in one line. */
export class StreamUrlError extends FlashnodeError {
  readonly code = "USAGE";
  override readonly name = "StreamUrlError";
}

type State = "idle" | "connecting" | "open" | "waiting" | "closed";

function sampleOf(data: string | Uint8Array): string {
  if (typeof data === "string") return data.slice(0, SAMPLE_CHARS);
  return bytesToHex(data.subarray(0, SAMPLE_CHARS / 2));
}

function rawToBuffer(data: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Array.isArray(data)) return Buffer.concat(data);
  if (data instanceof ArrayBuffer) return Buffer.from(data);
  return data;
}

export class FlashblockStream {
  readonly #opts: FlashblockStreamOptions;
  readonly #clock: StreamClock;
  readonly #random: () => number;
  readonly #readTimeoutMs: number;
  readonly #pingIntervalMs: number;
  readonly #pongTimeoutMs: number;
  readonly #healthyAfterMs: number;
  readonly #stats: FlashblockStreamStats = {
    frames: 0,
    flashblocks: 0,
    invalid: 0,
    connects: 0,
    reconnects: 0,
    disconnects: 0,
    disconnectsBy: {},
    readTimeouts: 0,
    pingsMissed: 0,
    bytes: 0,
    lastFrameAt: undefined,
  };
  #state: State = "idle";
  #ws: WebSocket | undefined;
  #attempt = 0;
  #dials = 0;
  /** Dials that failed since the last connection opened. */
  #failedDials = 0;
  /** The URL's host, for log lines: a provider may carry its key in the path or query. */
  readonly #host: string;
  #openedAt = 0;
  #flashblocksThisConnection = 0;
  #lastFrameAt = 0;
  #pingSentAt: number | undefined;
  /** Why we are cutting the connection ourselves (liveness), reported when it closes. */
  #failure: { kind: DisconnectKind; message: string } | undefined;
  #lastError: string | undefined;
  #cancelRead: (() => void) | undefined;
  #cancelPing: (() => void) | undefined;
  #cancelRetry: (() => void) | undefined;
  #closed: Promise<void> = Promise.resolve();

  constructor(opts: FlashblockStreamOptions) {
    let protocol: string | undefined;
    try {
      protocol = new URL(opts.url).protocol;
    } catch {}
    if (protocol !== "ws:" && protocol !== "wss:")
      throw new StreamUrlError(`the flashblocks stream must be a ws:// or wss:// URL: ${opts.url}`);
    this.#opts = opts;
    this.#host = new URL(opts.url).host;
    this.#clock = opts.clock ?? systemClock;
    this.#random = opts.random ?? Math.random;
    this.#readTimeoutMs = opts.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
    this.#pingIntervalMs = opts.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS;
    this.#pongTimeoutMs = opts.pongTimeoutMs ?? this.#readTimeoutMs;
    this.#healthyAfterMs = opts.healthyAfterMs ?? DEFAULT_HEALTHY_AFTER_MS;
  }

  /** A copy of the counters (metrics read them). */
  get stats(): Readonly<FlashblockStreamStats> {
    return { ...this.#stats, disconnectsBy: { ...this.#stats.disconnectsBy } };
  }

  get connected(): boolean {
    return this.#state === "open";
  }

  start(): void {
    if (this.#state !== "idle") return;
    this.#dial();
  }

  /** Stops for good: no more dials; resolves once the socket is closed. */
  close(): Promise<void> {
    if (this.#state === "closed") return this.#closed;
    const previous = this.#state;
    this.#state = "closed";
    this.#cancelRetry?.();
    this.#stopLiveness();
    const ws = this.#ws;
    if (ws === undefined || ws.readyState === WebSocket.CLOSED) return this.#closed;
    this.#closed = new Promise<void>((resolve) => {
      ws.once("close", () => resolve());
      if (previous === "open") {
        ws.close(1000);
        const t = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS);
        ws.once("close", () => clearTimeout(t));
      } else {
        ws.terminate();
      }
    });
    return this.#closed;
  }

  #log(): Logger | undefined {
    return this.#opts.logger;
  }

  #dial(): void {
    this.#cancelRetry = undefined;
    if (this.#state === "closed") return;
    if (this.#dials > 0) this.#stats.reconnects++;
    this.#dials++;
    this.#state = "connecting";
    this.#failure = undefined;
    this.#lastError = undefined;
    this.#flashblocksThisConnection = 0;
    const ws = new WebSocket(this.#opts.url, {
      handshakeTimeout: this.#opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      maxPayload: this.#opts.maxFrameBytes ?? MAX_FRAME_BYTES,
      perMessageDeflate: false,
    });
    this.#ws = ws;
    ws.on("open", () => this.#onOpen(ws));
    ws.on("message", (data, isBinary) => {
      if (this.#ws !== ws || this.#state !== "open") return;
      const buf = rawToBuffer(data);
      this.#onFrame(isBinary ? buf : buf.toString("utf8"));
    });
    ws.on("pong", () => {
      if (this.#ws === ws) this.#pingSentAt = undefined;
    });
    ws.on("error", (err) => {
      this.#lastError = err.message;
    });
    ws.on("close", (code, reason) => this.#onClose(ws, code, reason.toString()));
  }

  #onOpen(ws: WebSocket): void {
    if (this.#ws !== ws || this.#state !== "connecting") return;
    this.#state = "open";
    this.#stats.connects++;
    this.#openedAt = this.#clock.now();
    this.#lastFrameAt = this.#openedAt;
    this.#pingSentAt = undefined;
    this.#armRead(this.#readTimeoutMs);
    this.#armPing(this.#pingIntervalMs);
    this.#log()?.info(
      { host: this.#host, dials: this.#dials, failedDials: this.#failedDials },
      "flashblocks stream connected",
    );
    this.#failedDials = 0;
    this.#call(() => this.#opts.handlers.onConnect?.());
  }

  #onFrame(data: string | Uint8Array): void {
    const receivedAt = this.#clock.now();
    this.#lastFrameAt = receivedAt;
    this.#stats.lastFrameAt = receivedAt;
    this.#stats.frames++;
    let fb: Flashblock;
    let encoding: FrameEncoding;
    try {
      const decoded = decodeFrame(data, this.#opts.maxFrameBytes ?? MAX_DECODED_FRAME_BYTES);
      this.#stats.bytes += decoded.bytes;
      encoding = decoded.encoding;
      fb = parseFlashblock(decoded.json);
    } catch (e) {
      // Anything else is a bug here, but one frame must not take the follower down with it.
      const known = e instanceof FrameDecodeError || e instanceof FlashblockParseError;
      if (!known) this.#log()?.error({ err: e }, "flashblocks stream: frame handling failed");
      this.#stats.invalid++;
      const invalid: InvalidFrame = {
        code: known ? e.code : "FRAME_INTERNAL",
        message: e instanceof Error ? e.message : String(e),
        sample: sampleOf(data),
      };
      this.#log()?.warn(
        { code: invalid.code, sample: invalid.sample },
        `flashblocks stream: invalid frame skipped: ${invalid.message}`,
      );
      this.#call(() => this.#opts.handlers.onInvalid?.(invalid));
      return;
    }
    this.#stats.flashblocks++;
    this.#flashblocksThisConnection++;
    this.#call(() => this.#opts.handlers.onFlashblock(fb, receivedAt, encoding));
  }

  /** A handler's exception must not stop the stream: it is logged. */
  #call(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.#log()?.error({ err: e }, "flashblocks stream: handler failed");
    }
  }

  #armRead(ms: number): void {
    this.#cancelRead = this.#clock.schedule(() => {
      const idle = this.#clock.now() - this.#lastFrameAt;
      if (idle >= this.#readTimeoutMs) {
        this.#stats.readTimeouts++;
        this.#fail("read-timeout", `no frame for ${Math.round(idle)} ms`);
      } else {
        this.#armRead(this.#readTimeoutMs - idle);
      }
    }, ms);
  }

  #armPing(ms: number): void {
    this.#cancelPing = this.#clock.schedule(() => {
      const now = this.#clock.now();
      if (this.#pingSentAt !== undefined) {
        const waited = now - this.#pingSentAt;
        if (waited >= this.#pongTimeoutMs) {
          this.#stats.pingsMissed++;
          this.#fail("pong-timeout", `no pong for ${Math.round(waited)} ms`);
          return;
        }
        this.#armPing(Math.min(this.#pingIntervalMs, this.#pongTimeoutMs - waited));
        return;
      }
      // The socket may be closing already (the peer started the close handshake).
      if (this.#ws?.readyState !== WebSocket.OPEN) return;
      this.#pingSentAt = now;
      this.#ws.ping();
      this.#armPing(Math.min(this.#pingIntervalMs, this.#pongTimeoutMs));
    }, ms);
  }

  #stopLiveness(): void {
    this.#cancelRead?.();
    this.#cancelPing?.();
    this.#cancelRead = undefined;
    this.#cancelPing = undefined;
  }

  /** Cuts a connection that failed a liveness check; its 'close' reports why. */
  #fail(kind: DisconnectKind, message: string): void {
    this.#stopLiveness();
    this.#failure = { kind, message };
    this.#ws?.terminate();
  }

  #onClose(ws: WebSocket, code: number, reason: string): void {
    if (this.#ws !== ws) return;
    this.#stopLiveness();
    this.#ws = undefined;
    if (this.#state === "closed") return;
    const wasOpen = this.#state === "open";
    this.#stats.disconnects++;
    const now = this.#clock.now();
    if (
      wasOpen &&
      this.#flashblocksThisConnection > 0 &&
      now - this.#openedAt >= this.#healthyAfterMs
    )
      this.#attempt = 0;
    const delay = backoffDelay(this.#attempt, this.#opts.backoff ?? DEFAULT_BACKOFF, this.#random);
    this.#attempt++;
    const failure = this.#failure ?? {
      kind: wasOpen ? (this.#lastError === undefined ? "remote-close" : "error") : "connect-failed",
      message:
        this.#lastError ?? `closed by the server (${code}${reason === "" ? "" : ` ${reason}`})`,
    };
    const event: DisconnectReason = { ...failure, wasOpen, retryInMs: delay };
    this.#stats.disconnectsBy[event.kind] = (this.#stats.disconnectsBy[event.kind] ?? 0) + 1;
    // Once per outage at warn: the dials that fail after the first say nothing new.
    const quiet = !wasOpen && this.#failedDials > 0;
    if (!wasOpen) this.#failedDials++;
    this.#log()?.[quiet ? "debug" : "warn"](
      { host: this.#host, kind: event.kind, retryInMs: delay },
      `flashblocks stream disconnected: ${event.message}`,
    );
    this.#state = "waiting";
    this.#cancelRetry = this.#clock.schedule(() => this.#dial(), delay);
    this.#call(() => this.#opts.handlers.onDisconnect?.(event));
  }
}
