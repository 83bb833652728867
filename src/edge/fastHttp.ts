// The node's listening socket: plain keep-alive JSON-RPC POSTs (what every client sends, almost
// always) are read and answered here on node:net, without node:http's per-request objects and
// streams; any other connection is handed whole to the node:http server, from the first byte it
// has not answered. The fast path only serves what it fully understands (HTTP/1.1, one
// Content-Length, no Transfer-Encoding, Expect or Upgrade, ASCII headers, a routed JSON-RPC path
// and a JSON content type) and hands over everything else, so malformed or unusual requests get
// node:http's (llhttp's) exact answers and the fast path adds no parsing leniency of its own.
import type { Server as HttpServer } from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import type { Dispatcher, DispatchResult } from "../rpc/dispatch.ts";
import { corsFields, INTERNAL_ERROR, writeAnswer } from "../rpc/httpAnswer.ts";
import type { RequestContext } from "../rpc/method.ts";
import { jsonContentType } from "../rpc/server.ts";

export type FastHttpOptions = {
  /** Gets every connection the fast path does not serve, with the bytes it has not answered. */
  readonly fallback: HttpServer;
  /** The context of a JSON-RPC path; anything else is the fallback's to answer. */
  readonly route: (path: string, client: string) => RequestContext | number | undefined;
  readonly dispatcher: Dispatcher;
  readonly bodyLimit: number;
  readonly headerTimeoutMs: number;
  readonly requestReadTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly maxConnections: number;
  /** CORS allowed origins, lower-cased ("*" for any); undefined: no CORS headers. */
  readonly corsOrigins: ReadonlySet<string> | undefined;
};

/** node:http's default maxHeaderSize: a longer head is the fallback's (it answers 431). */
const MAX_HEAD = 16 * 1024;
const HEAD_END = Buffer.from("\r\n\r\n");
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A field value of visible ASCII, spaces and tabs; anything else goes to llhttp. */
const FIELD_VALUE = /^[\t\x20-\x7e]*$/;
/** An origin-form target of visible ASCII. */
const TARGET = /^\/[\x21-\x7e]*$/;
/** What node:http sends when a request's head or body is too slow (then it closes). */
const REQUEST_TIMEOUT = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n";

/** A request head the fast path serves. */
type Head = {
  readonly target: string;
  readonly length: number;
  readonly close: boolean;
  readonly origin: string | undefined;
};

/**
 * Parses a request head (latin1 text before the blank line); undefined when the fast path does
 * not serve it whole, and the fallback must.
 */
export function parseHead(text: string): Head | undefined {
  let lineEnd = text.indexOf("\r\n");
  if (lineEnd < 0) lineEnd = text.length;
  if (!text.startsWith("POST /") || !text.endsWith(" HTTP/1.1", lineEnd)) return undefined;
  const target = text.slice(5, lineEnd - 9);
  if (!TARGET.test(target)) return undefined;
  let length = -1;
  let contentType: string | undefined;
  let host = false;
  let close = false;
  let origin: string | undefined;
  let i = lineEnd + 2;
  while (i < text.length) {
    let end = text.indexOf("\r\n", i);
    if (end < 0) end = text.length;
    const colon = text.indexOf(":", i);
    if (colon < 0 || colon > end) return undefined;
    const name = text.slice(i, colon);
    const value = text.slice(colon + 1, end).trim();
    if (!TOKEN.test(name) || !FIELD_VALUE.test(value)) return undefined;
    switch (name.toLowerCase()) {
      case "content-length":
        if (length >= 0 || !/^[0-9]{1,10}$/.test(value)) return undefined;
        length = Number(value);
        break;
      case "content-type":
        if (contentType !== undefined) return undefined;
        contentType = value;
        break;
      case "host":
        if (host) return undefined;
        host = true;
        break;
      case "connection":
        for (const token of value.toLowerCase().split(",")) {
          const t = token.trim();
          if (t === "close") close = true;
          else if (t !== "keep-alive" && t !== "") return undefined;
        }
        break;
      case "origin":
        if (origin !== undefined) return undefined;
        origin = value;
        break;
      case "transfer-encoding":
      case "expect":
      case "upgrade":
        return undefined;
    }
    i = end + 2;
  }
  if (length < 0 || !host || !jsonContentType(contentType)) return undefined;
  return { target, length, close, origin };
}

// node:http's Date header: the same text for every response within one second.
let dateSecond = -1;
let dateText = "";
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

/** One client connection while the fast path serves it. */
class Connection {
  buf: Buffer | undefined = undefined;
  /** Where the search for the end of the head resumes (bytes already searched). */
  scanned = 0;
  /** The head of the request whose body is being read. */
  head: Head | undefined = undefined;
  bodyAt = 0;
  /** When the current request's first byte came (or the connection opened); 0 when idle. */
  startedAt: number;
  idleSince = 0;
  /** A dispatch is running: later bytes wait (responses go out in order). */
  busy = false;
  ended = false;
  handedOver = false;
  /** The last routed target and its context: a keep-alive client asks for the same again. */
  lastTarget = "";
  lastCtx: RequestContext | undefined = undefined;
  readonly client: string;
  readonly onData = (chunk: Buffer) => this.fast.data(this, chunk);
  readonly onEnd = () => this.fast.end(this);
  readonly onClose = () => this.fast.closed(this);
  readonly onDrain = () => this.fast.drained(this);

  constructor(
    readonly socket: Socket,
    readonly fast: FastHttp,
  ) {
    this.client = socket.remoteAddress ?? "unknown";
    this.startedAt = Date.now();
  }
}

function ignore(): void {}

class FastHttp {
  readonly connections = new Set<Connection>();
  readonly keepAlive: string;
  closing = false;

  constructor(readonly opts: FastHttpOptions) {
    this.keepAlive = `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(opts.idleTimeoutMs / 1000)}\r\n\r\n`;
  }

  accept(socket: Socket): void {
    if (this.closing) return void socket.destroy();
    const c = new Connection(socket, this);
    this.connections.add(c);
    socket.on("data", c.onData);
    socket.on("end", c.onEnd);
    socket.on("close", c.onClose);
    socket.on("drain", c.onDrain);
    socket.on("error", ignore); // a vanished client is not our error
  }

  data(c: Connection, chunk: Buffer): void {
    if (c.buf === undefined) {
      c.buf = chunk;
      if (c.startedAt === 0) c.startedAt = Date.now();
    } else c.buf = Buffer.concat([c.buf, chunk]);
    this.serve(c);
  }

  /** Serves every complete request in the buffer, in order, until one must wait. */
  serve(c: Connection): void {
    while (c.buf !== undefined && !c.busy && !c.handedOver) {
      const buf: Buffer = c.buf;
      if (c.head === undefined) {
        const end = buf.indexOf(HEAD_END, c.scanned);
        if (end < 0) {
          if (buf.length > MAX_HEAD) this.handOver(c);
          else c.scanned = Math.max(0, buf.length - 3);
          return;
        }
        const head = end > MAX_HEAD ? undefined : parseHead(buf.toString("latin1", 0, end));
        if (head === undefined || head.length > this.opts.bodyLimit) {
          this.handOver(c);
          return;
        }
        let ctx = c.lastCtx;
        if (head.target !== c.lastTarget || ctx === undefined) {
          const q = head.target.indexOf("?");
          const routed = this.opts.route(q < 0 ? head.target : head.target.slice(0, q), c.client);
          if (typeof routed !== "object") {
            this.handOver(c);
            return;
          }
          ctx = routed;
          c.lastTarget = head.target;
          c.lastCtx = ctx;
        }
        c.head = head;
        c.bodyAt = end + 4;
        c.scanned = 0;
      }
      const head = c.head;
      const bodyEnd = c.bodyAt + head.length;
      if (buf.length < bodyEnd) return;
      const body = buf.toString("utf8", c.bodyAt, bodyEnd);
      c.buf = buf.length === bodyEnd ? undefined : buf.subarray(bodyEnd);
      c.head = undefined;
      c.startedAt = c.buf === undefined ? 0 : Date.now();
      let out: DispatchResult | Promise<DispatchResult>;
      try {
        out = this.opts.dispatcher.handle(body, c.lastCtx!);
      } catch {
        out = INTERNAL_ERROR;
      }
      if (out instanceof Promise) {
        c.busy = true;
        out.then(
          (o) => this.answered(c, head, o),
          () => this.answered(c, head, INTERNAL_ERROR),
        );
        return;
      }
      this.write(c, head, out);
    }
  }

  answered(c: Connection, head: Head, out: DispatchResult): void {
    c.busy = false;
    this.write(c, head, out);
    if (c.socket.destroyed) return;
    if (c.ended && c.buf === undefined) return void c.socket.end();
    this.serve(c);
  }

  write(c: Connection, head: Head, out: DispatchResult): void {
    const socket = c.socket;
    if (socket.destroyed) return;
    const cors = this.opts.corsOrigins;
    const close = head.close || this.closing;
    writeAnswer(
      socket,
      out,
      cors === undefined ? undefined : corsFields("POST", head.origin, cors),
      `Date: ${httpDate()}\r\n${close ? "Connection: close\r\n\r\n" : this.keepAlive}`,
    );
    if (close) {
      c.buf = undefined;
      socket.end();
      return;
    }
    if (c.buf === undefined) c.idleSince = Date.now();
    // A client that sends faster than it reads: stop reading until our answers drain.
    if (socket.writableNeedDrain) socket.pause();
  }

  drained(c: Connection): void {
    if (c.handedOver || !c.socket.isPaused()) return;
    c.socket.resume();
    this.serve(c);
  }

  end(c: Connection): void {
    c.ended = true;
    // Half-closed by the client: answer what was complete, then close our side.
    if (!c.busy) c.socket.end();
  }

  closed(c: Connection): void {
    this.connections.delete(c);
  }

  /** From here on node:http serves this connection, starting with the bytes not yet answered. */
  handOver(c: Connection): void {
    const socket = c.socket;
    const rest = c.buf;
    c.handedOver = true;
    c.buf = undefined;
    this.connections.delete(c);
    socket.off("data", c.onData);
    socket.off("end", c.onEnd);
    socket.off("close", c.onClose);
    socket.off("drain", c.onDrain);
    socket.off("error", ignore);
    if (socket.isPaused()) socket.resume();
    this.opts.fallback.emit("connection", socket);
    if (rest !== undefined) socket.emit("data", rest);
  }

  /** node:http's timeouts: a head or a body too slow gets a 408; an idle connection is closed. */
  sweep(): void {
    const now = Date.now();
    const o = this.opts;
    for (const c of this.connections) {
      if (c.busy) continue;
      if (c.startedAt !== 0) {
        const age = now - c.startedAt;
        const limit = c.head === undefined ? o.headerTimeoutMs : o.requestReadTimeoutMs;
        if (limit > 0 && age > limit) {
          c.buf = undefined;
          c.socket.end(REQUEST_TIMEOUT);
          c.socket.destroySoon();
        }
      } else if (o.idleTimeoutMs > 0 && now - c.idleSince > o.idleTimeoutMs) c.socket.destroy();
    }
  }

  /** Stops serving: idle connections close now, busy ones after their answer. */
  close(): void {
    this.closing = true;
    for (const c of this.connections) if (!c.busy && c.startedAt === 0) c.socket.destroy();
  }

  destroyAll(): void {
    for (const c of this.connections) c.socket.destroy();
  }
}

export type FastHttpServer = {
  /** The listening server (node:net). */
  readonly server: Server;
  /** Stops accepting, closes idle connections; resolves when every connection is gone. */
  close(): Promise<void>;
};

export function createFastHttpServer(opts: FastHttpOptions): FastHttpServer {
  const fast = new FastHttp(opts);
  // As node:http's own server: half-open sockets (a request may follow the client's FIN), no Nagle.
  const server = createServer({ allowHalfOpen: true, noDelay: true }, (socket) =>
    fast.accept(socket),
  );
  server.maxConnections = opts.maxConnections;
  let timer: NodeJS.Timeout | undefined;
  server.on("listening", () => {
    // The fallback tracks its connections (and their timeouts) only once it "listens".
    opts.fallback.emit("listening");
    timer = setInterval(() => fast.sweep(), 1000).unref();
  });
  return {
    server,
    close() {
      clearInterval(timer);
      fast.close();
      return new Promise((resolve) => {
        opts.fallback.close(() => {}); // closes its idle connections; it never listened itself
        server.close(() => resolve());
        // Connections still open after a grace period are cut, as closeAllConnections did.
        setTimeout(() => {
          fast.destroyAll();
          opts.fallback.closeAllConnections();
        }, 1000).unref();
      });
    },
  };
}
