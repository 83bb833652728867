// HTTP transport with geth's behaviour (rpc/http.go ServeHTTP/validateRequest, node/rpcstack.go
// vhost and CORS layers): status codes and texts for transport errors, JSON-RPC errors at 200.
// This file reads and checks requests; what goes back is written by httpAnswer.ts.

import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo, Server as NetServer } from "node:net";
import { isIP } from "node:net";
import { FlashnodeError } from "../util/errors.ts";
import type { Dispatcher, DispatchResult } from "./dispatch.ts";
import { applyCors, INTERNAL_ERROR, sendAnswer, sendHttpError } from "./httpAnswer.ts";
import {
  HTTP_BODY_LIMIT,
  HTTP_IDLE_TIMEOUT_MS,
  HTTP_READ_HEADER_TIMEOUT_MS,
  HTTP_READ_TIMEOUT_MS,
} from "./limits.ts";
import type { RequestContext } from "./method.ts";

export type RpcHttpOptions = {
  readonly dispatcher: Dispatcher;
  /** Max body bytes (default 5 MiB). */
  readonly bodyLimit?: number;
  /** Context handed to every call (default: public tier). */
  readonly context?: RequestContext;
  /** CORS allowed origins ("*" for any); unset disables CORS, as in geth. */
  readonly corsOrigins?: readonly string[];
  /** Allowed Host names ("*" for any; IPs always pass); unset disables the check. */
  readonly vhosts?: readonly string[];
};

/** Serves one JSON-RPC HTTP request; `ctx` overrides the handler's default context. */
export type RpcHttpHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  ctx?: RequestContext,
) => void;

const PUBLIC_CONTEXT: RequestContext = { tier: "public" };
const ACCEPTED_TYPES = new Set([
  "application/json",
  "application/json-rpc",
  "application/jsonrequest",
]);

/** Go's r.ContentLength: -1 for chunked bodies, 0 when there is no body. */
function contentLength(req: IncomingMessage): number {
  if (req.headers["transfer-encoding"] !== undefined) return -1;
  const header = req.headers["content-length"];
  return header === undefined ? 0 : Number(header);
}

// A client sends the same Content-Type on every request: remember the last verdict.
let lastContentType: string | undefined;
let lastContentTypeOk = false;

/** Whether a Content-Type header names one of geth's accepted JSON media types. */
export function jsonContentType(header: string | undefined): boolean {
  if (header !== undefined && header === lastContentType) return lastContentTypeOk;
  const ok = ACCEPTED_TYPES.has(parseMediaType(header) ?? "");
  lastContentType = header;
  lastContentTypeOk = ok;
  return ok;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PARAM =
  /^\s*([!#$%&'*+\-.^_`|~0-9A-Za-z]+)=("(?:[^"\\]|\\.)*"|[!#$%&'*+\-.^_`|~0-9A-Za-z]+)\s*$/;

/** Media type of a Content-Type header per Go's mime.ParseMediaType; undefined if invalid. */
export function parseMediaType(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const parts = header.split(";");
  const type = parts[0]!.trim().toLowerCase();
  const slash = type.indexOf("/");
  if (slash < 0 || !TOKEN.test(type.slice(0, slash)) || !TOKEN.test(type.slice(slash + 1))) {
    return undefined;
  }
  const seen = new Set<string>();
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i]!;
    if (part.trim() === "") {
      if (i === parts.length - 1) break; // a trailing ";" is tolerated
      return undefined;
    }
    const m = PARAM.exec(part);
    if (m === null) return undefined;
    const key = m[1]!.toLowerCase();
    if (seen.has(key)) return undefined;
    seen.add(key);
  }
  return type;
}

function hostOf(hostHeader: string): string {
  if (hostHeader.startsWith("[")) {
    const end = hostHeader.indexOf("]");
    return end > 0 && hostHeader[end + 1] === ":" ? hostHeader.slice(1, end) : hostHeader;
  }
  const colon = hostHeader.indexOf(":");
  return colon >= 0 && colon === hostHeader.lastIndexOf(":")
    ? hostHeader.slice(0, colon)
    : hostHeader;
}

/** A request handler for the JSON-RPC endpoint; mount it on any path. */
export function createRpcHandler(opts: RpcHttpOptions): RpcHttpHandler {
  const limit = opts.bodyLimit ?? HTTP_BODY_LIMIT;
  const ctx = opts.context ?? PUBLIC_CONTEXT;
  const vhosts =
    opts.vhosts === undefined ? undefined : new Set(opts.vhosts.map((h) => h.toLowerCase()));
  const cors =
    opts.corsOrigins === undefined
      ? undefined
      : new Set(opts.corsOrigins.map((o) => o.toLowerCase()));

  function vhostAllowed(req: IncomingMessage): boolean {
    const header = req.headers.host;
    if (vhosts === undefined || header === undefined || header === "") return true;
    const host = hostOf(header).toLowerCase();
    return isIP(host) !== 0 || vhosts.has("*") || vhosts.has(host);
  }

  function validate(req: IncomingMessage, res: ServerResponse, length: number): boolean {
    if (req.method === "PUT" || req.method === "DELETE") {
      sendHttpError(res, 405, "method not allowed");
      return false;
    }
    if (length > limit) {
      sendHttpError(res, 413, `content length too large (${length}>${limit})`);
      return false;
    }
    if (req.method === "OPTIONS") return true;
    if (jsonContentType(req.headers["content-type"])) return true;
    sendHttpError(res, 415, "invalid content type, only application/json is supported");
    return false;
  }

  function respond(
    res: ServerResponse,
    body: string,
    truncated: boolean,
    reqCtx: RequestContext,
  ): void {
    let out: DispatchResult | Promise<DispatchResult>;
    try {
      out = opts.dispatcher.handle(body, reqCtx);
    } catch {
      out = INTERNAL_ERROR;
    }
    if (out instanceof Promise) {
      out.then(
        (o) => sendAnswer(res, o, truncated),
        () => sendAnswer(res, INTERNAL_ERROR, truncated),
      );
    } else {
      sendAnswer(res, out, truncated);
    }
  }

  return (req, res, reqCtx = ctx) => {
    res.on("error", ignore); // a vanished client is not our error
    req.on("error", ignore);
    if (!vhostAllowed(req)) {
      sendHttpError(res, 403, "invalid host specified");
      return;
    }
    if (cors !== undefined && applyCors(req, res, cors)) return;
    const length = contentLength(req);
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    // Permit empty GETs for health checks (geth: load balancers).
    if (req.method === "GET" && length === 0 && (q < 0 || q === url.length - 1)) {
      res.writeHead(200, { "content-length": 0 });
      res.end();
      return;
    }
    if (!validate(req, res, length)) return;
    // Module-level listeners over one state object: no closures made per request.
    (req as ReadingRequest)[BODY] = new BodyRead(res, reqCtx, respond, limit);
    req.on("data", onBodyData);
    req.on("end", onBodyEnd);
  };
}

function ignore(): void {}

const BODY = Symbol("body");
type ReadingRequest = IncomingMessage & { [BODY]: BodyRead };

/** One request body being read: at most `limit` bytes, like geth's io.LimitReader. */
class BodyRead {
  readonly chunks: Buffer[] = [];
  size = 0;
  done = false;

  constructor(
    readonly res: ServerResponse,
    readonly ctx: RequestContext,
    readonly respond: (
      res: ServerResponse,
      body: string,
      truncated: boolean,
      ctx: RequestContext,
    ) => void,
    readonly limit: number,
  ) {}

  finish(truncated: boolean): void {
    this.done = true;
    const buf = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
    this.respond(this.res, buf.toString("utf8"), truncated, this.ctx);
  }
}

function onBodyData(this: ReadingRequest, chunk: Buffer): void {
  const b = this[BODY];
  if (b.done) return;
  // A longer (chunked) body is cut: its unread rest closes the connection after the answer.
  if (b.size + chunk.length > b.limit) {
    b.chunks.push(chunk.subarray(0, b.limit - b.size));
    b.size = b.limit;
    b.finish(true);
    return;
  }
  b.chunks.push(chunk);
  b.size += chunk.length;
}

function onBodyEnd(this: ReadingRequest): void {
  const b = this[BODY];
  if (!b.done) b.finish(false);
}

/** The path of a request target (origin-form, or absolute-form as sent to proxies). */
function pathOf(url: string): string {
  if (url.startsWith("/")) {
    const q = url.indexOf("?");
    return q < 0 ? url : url.slice(0, q);
  }
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/** A node:http server answering JSON-RPC on `/` (other paths: 404, as geth). */
export function createRpcServer(opts: RpcHttpOptions): Server {
  const handler = createRpcHandler(opts);
  const server = createServer((req, res) => {
    if (pathOf(req.url ?? "/") !== "/") {
      res.writeHead(404, { "content-length": 0 });
      res.end();
      return;
    }
    handler(req, res);
  });
  server.headersTimeout = HTTP_READ_HEADER_TIMEOUT_MS;
  server.requestTimeout = HTTP_READ_TIMEOUT_MS;
  server.keepAliveTimeout = HTTP_IDLE_TIMEOUT_MS;
  return server;
}

/** The listen address cannot be used; an operator-facing error. */
export class PortInUseError extends FlashnodeError {
  readonly code = "PORT_UNAVAILABLE";
}

/** Starts listening; resolves with the base URL (port 0 picks a free port). */
export function listen(server: NetServer, host: string, port: number): Promise<{ url: string }> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) =>
      reject(
        err.code === "EADDRINUSE"
          ? new PortInUseError(
              `port ${port} on ${host} is already in use: stop what holds it or choose another --port`,
            )
          : err.code === "EADDRNOTAVAIL"
            ? new PortInUseError(`cannot listen on ${host}: no such local address (--host)`)
            : err,
      );
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      const addr = server.address() as AddressInfo;
      const h = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
      resolve({ url: `http://${h}:${addr.port}/` });
    });
  });
}
