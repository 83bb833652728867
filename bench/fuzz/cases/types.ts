// The shapes of fuzz cases and what the generators know about the target.

/** The node's HTTP body limit (geth's 5 MiB): above it with a Content-Length → 413. */
export const BODY_LIMIT = 5 * 1024 * 1024;

export const CASE_KINDS = [
  "valid-call",
  "wrong-types",
  "malformed-json",
  "batch",
  "oversized",
  "content-type",
  "http-method",
  "rpc-key",
  "http-misc",
  "raw-http",
  "slow-body",
  "stall",
  "dropped",
  "ws-rpc",
  "ws-raw",
  "ws-stream",
] as const;
export type CaseKind = (typeof CASE_KINDS)[number];

/** What the harness knows about the target when it generates cases. */
export type CaseEnv = {
  /** `/rpc/<key>` of a usable dedicated key, when the node has the endpoint. */
  readonly dedicatedPath: string | undefined;
  /** The status an unknown key gets (401 with the endpoint, 404 before it existed). */
  readonly badKeyStatus: number;
  /** Addresses with state (the dev accounts). */
  readonly accounts: readonly string[];
};

export type Base = { readonly index: number; readonly kind: CaseKind; readonly variant: string };

/** A request sent with node:http (keep-alive agent unless `fresh`). */
export type HttpCase = Base & {
  readonly transport: "http";
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** Send without Content-Length (chunked). */
  readonly chunked: boolean;
  /** Statuses that are correct for this request. */
  readonly expect: readonly number[];
  /** A 200 body must be a JSON-RPC response (false for /metrics, /healthz, …). */
  readonly jsonrpc: boolean;
  /** The id the single response must echo, when the request had a plain one. */
  readonly expectId?: { readonly value: unknown };
  /** A connection error is an acceptable outcome (the server may cut an oversized upload). */
  readonly mayDrop: boolean;
};

export type RawStep = { readonly data: Buffer; readonly delayMs: number };

/** Bytes written on a node:net socket, step by step. */
export type RawCase = Base & {
  readonly transport: "raw";
  readonly steps: readonly RawStep[];
  /** read: wait for answers; hang: hold the socket open `holdMs` then cut it; close: cut it. */
  readonly after: "read" | "hang" | "close";
  readonly holdMs: number;
  /** HTTP answers expected in `read` mode (0: any number, including none). */
  readonly responses: number;
  readonly expect: readonly number[];
  readonly jsonrpc: boolean;
};

export type WsFrame = { readonly data: Buffer; readonly binary: boolean };

/** A WebSocket session with the `ws` client. */
export type WsCase = Base & {
  readonly transport: "ws";
  readonly path: string;
  /** /flashblocks: messages are stream payloads, not JSON-RPC answers. */
  readonly stream: boolean;
  readonly frames: readonly WsFrame[];
  /** Send one eth_chainId after the frames and require its answer (if the socket is open). */
  readonly sentinel: boolean;
  /** How long to keep reading after the frames. */
  readonly listenMs: number;
};

export type FuzzCase = HttpCase | RawCase | WsCase;

export type Route = { readonly path: string; readonly public: boolean };
