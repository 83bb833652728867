// The fast path over real sockets: what it serves itself, what it hands to node:http (and that
// the connection goes on there), order under pipelining, timeouts. The dispatcher is a stand-in:
// the JSON-RPC layer has its own tests.
import assert from "node:assert/strict";
import { createServer as createHttpServer } from "node:http";
import { connect, type Socket } from "node:net";
import { after, describe, test } from "node:test";
import type { Dispatcher } from "../rpc/dispatch.ts";
import type { RequestContext } from "../rpc/method.ts";
import { listen } from "../rpc/server.ts";
import { createFastHttpServer, type FastHttpServer, parseHead } from "./fastHttp.ts";

const CTX: RequestContext = { tier: "dedicated" };

/** Echoes the body; a body starting with "slow" is answered after 30 ms (a promise). */
const dispatcher: Dispatcher = {
  handle(body) {
    const answer = `{"echo":${JSON.stringify(body)}}`;
    if (body.startsWith("slow")) return new Promise((r) => setTimeout(() => r(answer), 30));
    if (body === "refuse")
      return { refused: true, status: 429, headers: { "retry-after": "1" }, body: "{}" };
    return answer;
  },
};

const running: FastHttpServer[] = [];
after(async () => {
  for (const s of running) await s.close();
});

async function start(timeouts: Partial<Record<"header" | "read" | "idle", number>> = {}) {
  // The fallback marks what it answers, so a test sees which side served a request.
  const fallback = createHttpServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const body = `fallback ${req.method} ${req.url}`;
      res.writeHead(200, { "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
  });
  const fast = createFastHttpServer({
    fallback,
    route: (path) => (path === "/" ? CTX : path === "/rpc/x" ? 401 : undefined),
    dispatcher,
    bodyLimit: 1000,
    headerTimeoutMs: timeouts.header ?? 10_000,
    requestReadTimeoutMs: timeouts.read ?? 10_000,
    idleTimeoutMs: timeouts.idle ?? 10_000,
    maxConnections: 10,
    corsOrigins: undefined,
  });
  running.push(fast);
  const { url } = await listen(fast.server, "127.0.0.1", 0);
  return Number(new URL(url).port);
}

/** A raw client: everything the server sent so far, and when it closed. */
function client(port: number) {
  const socket: Socket = connect(port, "127.0.0.1");
  let received = "";
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  socket.on("data", (d) => {
    received += d.toString("latin1");
  });
  socket.on("error", () => {});
  return {
    socket,
    closed,
    text: () => received,
    /** Waits until `n` complete responses have arrived (Content-Length framed). */
    async responses(n: number, timeoutMs = 30_000): Promise<string[]> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const got = split(received);
        if (got.length >= n) return got;
        if (Date.now() > deadline) throw new Error(`only ${got.length} of ${n}: ${received}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
  };
}

/** Splits a stream of responses into "STATUS-LINE|body" strings. */
function split(stream: string): string[] {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    const end = stream.indexOf("\r\n\r\n", i);
    if (end < 0) return out;
    const head = stream.slice(i, end);
    const m = /content-length: (\d+)/i.exec(head);
    const len = m === null ? 0 : Number(m[1]);
    if (stream.length < end + 4 + len) return out;
    out.push(`${head.slice(0, head.indexOf("\r\n"))}|${stream.slice(end + 4, end + 4 + len)}`);
    i = end + 4 + len;
  }
}

const post = (body: string, extra = "", path = "/") =>
  `POST ${path} HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

describe("parseHead", () => {
  const base = "POST / HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: 5";
  test("serves a plain JSON POST, with its target, length and Connection", () => {
    assert.deepEqual(parseHead(base), { target: "/", length: 5, close: false, origin: undefined });
    assert.equal(parseHead(`${base}\r\nConnection: close`)?.close, true);
    assert.equal(parseHead(`${base}\r\nconnection: Keep-Alive`)?.close, false);
    assert.equal(parseHead(base.replace("POST /", "POST /rpc/k?a=1"))?.target, "/rpc/k?a=1");
    assert.equal(parseHead(`${base}\r\nOrigin: https://a.b`)?.origin, "https://a.b");
    assert.equal(
      parseHead(base.replace("application/json", "application/json; charset=utf-8"))?.length,
      5,
    );
  });
  test("hands over everything else", () => {
    const refused = [
      base.replace("POST", "GET"),
      base.replace("HTTP/1.1", "HTTP/1.0"),
      base.replace("POST /", "POST http://h/"),
      base.replace("application/json", "text/plain"),
      base.replace("\r\nHost: h", ""),
      base.replace("Content-Length: 5", "Content-Length: +5"),
      base.replace("\r\nContent-Length: 5", ""),
      `${base}\r\nContent-Length: 5`,
      `${base}\r\nTransfer-Encoding: chunked`,
      `${base}\r\nExpect: 100-continue`,
      `${base}\r\nUpgrade: websocket`,
      `${base}\r\nConnection: upgrade`,
      `${base}\r\nX-Bad: a\u0001b`,
      `${base}\r\nX-Utf8: \u00e9`,
      `${base}\r\n folded`,
      `${base}\r\nBad Name: x`,
      base.replace("POST / ", "POST /a b "),
    ];
    for (const head of refused) assert.equal(parseHead(head), undefined, JSON.stringify(head));
  });
});

describe("fast http", () => {
  test("serves keep-alive POSTs itself, and pipelined ones in order", async () => {
    const port = await start();
    const c = client(port);
    c.socket.write(post("a") + post("slow-b") + post("c"));
    const got = await c.responses(3);
    assert.deepEqual(got, [
      'HTTP/1.1 200 OK|{"echo":"a"}',
      'HTTP/1.1 200 OK|{"echo":"slow-b"}',
      'HTTP/1.1 200 OK|{"echo":"c"}',
    ]);
    assert.match(c.text(), /Connection: keep-alive\r\nKeep-Alive: timeout=10\r\n/);
    c.socket.destroy();
  });

  test("reads heads and bodies split over many packets", async () => {
    const port = await start();
    const c = client(port);
    const bytes = Buffer.from(post('{"x":"é"}'));
    // Pacing, not timing: a pause after each byte lets the server read it alone (nothing tells
    // the client that it has). The assertion is on the answer only.
    for (let i = 0; i < bytes.length; i++) {
      c.socket.write(bytes.subarray(i, i + 1));
      await new Promise((r) => setTimeout(r, 1));
    }
    // The client reads latin1 (byte offsets for the framing): the answer's UTF-8 bytes.
    const utf8 = Buffer.from('{"echo":"{\\"x\\":\\"é\\"}"}').toString("latin1");
    assert.deepEqual(await c.responses(1), [`HTTP/1.1 200 OK|${utf8}`]);
    c.socket.destroy();
  });

  test("hands the connection to node:http at the first request it does not serve", async () => {
    const port = await start();
    const c = client(port);
    c.socket.write(post("a"));
    await c.responses(1);
    // A GET, then a POST, in one packet: both answered by node:http, in order.
    c.socket.write(`GET /healthz HTTP/1.1\r\nHost: h\r\n\r\n${post("b")}`);
    assert.deepEqual((await c.responses(3)).slice(1), [
      "HTTP/1.1 200 OK|fallback GET /healthz",
      "HTTP/1.1 200 OK|fallback POST /",
    ]);
    c.socket.destroy();
    // Unrouted paths, refused keys and over-limit bodies too.
    const d = client(port);
    d.socket.write(post("x", "", "/other") + post("y", "", "/rpc/x"));
    assert.deepEqual(await d.responses(2), [
      "HTTP/1.1 200 OK|fallback POST /other",
      "HTTP/1.1 200 OK|fallback POST /rpc/x",
    ]);
    d.socket.destroy();
    const e = client(port);
    e.socket.write(post("z".repeat(1001)));
    assert.deepEqual(await e.responses(1), ["HTTP/1.1 200 OK|fallback POST /"]);
    e.socket.destroy();
  });

  test("a refusal carries its status and headers; Connection: close closes", async () => {
    const port = await start();
    const c = client(port);
    c.socket.write(post("refuse") + post("a", "Connection: close\r\n") + post("never"));
    await c.closed;
    assert.deepEqual(split(c.text()), [
      "HTTP/1.1 429 Too Many Requests|{}",
      'HTTP/1.1 200 OK|{"echo":"a"}',
    ]);
    assert.match(c.text(), /retry-after: 1\r\n/);
    assert.match(c.text(), /Connection: close\r\n\r\n\{"echo":"a"\}$/);
  });

  test("a client that half-closes after a slow request still gets its answer", async () => {
    const port = await start();
    const c = client(port);
    c.socket.end(post("slow-a"));
    await c.closed;
    assert.deepEqual(split(c.text()), ['HTTP/1.1 200 OK|{"echo":"slow-a"}']);
  });

  test("timeouts: a slow head or body gets a 408; an idle connection is closed", async () => {
    const port = await start({ header: 300, read: 600, idle: 300 });
    const head = client(port);
    head.socket.write("POST / HTTP/1.1\r\nHost: h\r\n");
    const body = client(port);
    body.socket.write(post("abcdef").slice(0, -3));
    const idle = client(port);
    idle.socket.write(post("a"));
    await Promise.all([head.closed, body.closed, idle.closed]);
    assert.match(head.text(), /^HTTP\/1.1 408 Request Timeout\r\n/);
    assert.match(body.text(), /^HTTP\/1.1 408 Request Timeout\r\n/);
    assert.deepEqual(split(idle.text()), ['HTTP/1.1 200 OK|{"echo":"a"}']);
  });
});
