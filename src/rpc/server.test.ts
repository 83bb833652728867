import assert from "node:assert/strict";
import type { IncomingHttpHeaders, OutgoingHttpHeaders, Server } from "node:http";
import { request } from "node:http";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { createDispatcher } from "./dispatch.ts";
import type { MethodRegistry } from "./method.ts";
import { defineMethod, required } from "./method.ts";
import type { RpcHttpOptions } from "./server.ts";
import { createRpcServer, listen, parseMediaType } from "./server.ts";

const methods: MethodRegistry = {
  test_echo: defineMethod({ params: [required((raw) => raw)], handler: ([v]) => v }),
  test_tier: defineMethod({ params: [], handler: (_args, ctx) => ctx.tier }),
  test_throw: defineMethod({
    params: [],
    handler: () => {
      throw new Error("header not found");
    },
  }),
};
const dispatcher = createDispatcher(methods);

type Reply = { status: number; headers: IncomingHttpHeaders; body: string };

function send(
  url: string,
  opts: { method?: string; path?: string; headers?: OutgoingHttpHeaders; body?: string | Buffer },
): Promise<Reply> {
  const u = new URL(url);
  const headers = { ...(opts.headers ?? { "content-type": "application/json" }) };
  // Node sends GET/DELETE bodies unframed unless told the length.
  if (opts.body !== undefined) headers["content-length"] = Buffer.byteLength(opts.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        method: opts.method ?? "POST",
        path: opts.path ?? "/",
        headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(opts.body);
  });
}

/** Writes raw bytes on a socket and returns what comes back until the server closes. */
function raw(url: string, bytes: string): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const sock = connect(Number(u.port), u.hostname, () => sock.end(bytes));
    const chunks: Buffer[] = [];
    sock.on("data", (c: Buffer) => chunks.push(c));
    sock.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
    sock.on("error", reject);
  });
}

async function start(opts: Partial<RpcHttpOptions> = {}): Promise<{ server: Server; url: string }> {
  const server = createRpcServer({ dispatcher, ...opts });
  const { url } = await listen(server, "127.0.0.1", 0);
  return { server, url };
}

const CALL = '{"jsonrpc":"2.0","id":1,"method":"test_echo","params":["hi"]}';

describe("rpc http server", () => {
  let server: Server;
  let url: string;
  before(async () => {
    ({ server, url } = await start());
  });
  after(() => server.close());

  it("listen reports the bound URL", () => {
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  });

  it("answers a POST with application/json", async () => {
    const r = await send(url, { body: CALL });
    assert.equal(r.status, 200);
    assert.equal(r.headers["content-type"], "application/json");
    assert.equal(r.body, '{"jsonrpc":"2.0","id":1,"result":"hi"}');
    assert.equal(r.headers["content-length"], String(r.body.length));
  });

  it("hands the configured context to handlers (public by default)", async () => {
    const r = await send(url, { body: '{"jsonrpc":"2.0","id":1,"method":"test_tier"}' });
    assert.equal(r.body, '{"jsonrpc":"2.0","id":1,"result":"public"}');
    const dedicated = await start({ context: { tier: "dedicated" } });
    try {
      const d = await send(dedicated.url, {
        body: '{"jsonrpc":"2.0","id":1,"method":"test_tier"}',
      });
      assert.equal(d.body, '{"jsonrpc":"2.0","id":1,"result":"dedicated"}');
    } finally {
      dedicated.server.close();
    }
  });

  it("accepts geth's JSON content types with parameters", async () => {
    for (const ct of [
      "application/json; charset=utf-8",
      "Application/JSON",
      "application/json-rpc",
      "application/jsonrequest",
      "application/json;",
    ]) {
      const r = await send(url, { headers: { "content-type": ct }, body: CALL });
      assert.equal(r.status, 200, ct);
      assert.equal(r.body, '{"jsonrpc":"2.0","id":1,"result":"hi"}', ct);
    }
  });

  it("refuses other content types with 415", async () => {
    for (const headers of [
      { "content-type": "text/plain" },
      {},
      { "content-type": "application/json; x" },
    ]) {
      const r = await send(url, { headers, body: CALL });
      assert.equal(r.status, 415);
      assert.equal(r.body, "invalid content type, only application/json is supported\n");
      assert.equal(r.headers["content-type"], "text/plain; charset=utf-8");
    }
  });

  it("answers JSON-RPC errors with HTTP 200", async () => {
    const r = await send(url, { body: '{"jsonrpc":"2.0","id":2,"method":"test_throw"}' });
    assert.equal(r.status, 200);
    assert.equal(
      r.body,
      '{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"header not found"}}',
    );
    const p = await send(url, { body: "{" });
    assert.equal(p.status, 200);
    assert.equal(
      p.body,
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}',
    );
  });

  it("sends an empty 200 for notifications and empty bodies", async () => {
    for (const body of ['{"jsonrpc":"2.0","method":"test_echo","params":[1]}', ""]) {
      const r = await send(url, { body });
      assert.equal(r.status, 200);
      assert.equal(r.body, "");
      assert.equal(r.headers["content-type"], "application/json");
      assert.equal(r.headers["content-length"], "0");
    }
  });

  it("answers an empty GET as a health check", async () => {
    for (const path of ["/", "/?"]) {
      const r = await send(url, { method: "GET", path, headers: {} });
      assert.equal(r.status, 200);
      assert.equal(r.body, "");
    }
  });

  it("treats other GET/HEAD requests like POSTs, as geth", async () => {
    const q = await send(url, { method: "GET", path: "/?a=1", headers: {} });
    assert.equal(q.status, 415);
    const h = await send(url, { method: "HEAD", headers: {} });
    assert.equal(h.status, 415);
    const g = await send(url, { method: "GET", body: CALL });
    assert.equal(g.body, '{"jsonrpc":"2.0","id":1,"result":"hi"}');
  });

  it("refuses PUT and DELETE with 405", async () => {
    for (const method of ["PUT", "DELETE"]) {
      const r = await send(url, { method, body: CALL });
      assert.equal(r.status, 405);
      assert.equal(r.body, "method not allowed\n");
    }
  });

  it("passes OPTIONS regardless of content type", async () => {
    const r = await send(url, { method: "OPTIONS", headers: {} });
    assert.equal(r.status, 200);
    assert.equal(r.body, "");
  });

  it("answers 404 off the root path", async () => {
    const r = await send(url, { path: "/other", body: CALL });
    assert.equal(r.status, 404);
    assert.equal(r.body, "");
    // An absolute-form target is routed by its path.
    const abs = await raw(
      url,
      `POST http://x/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${CALL.length}\r\nConnection: close\r\n\r\n${CALL}`,
    );
    assert.ok(abs.endsWith('{"jsonrpc":"2.0","id":1,"result":"hi"}'), abs);
  });

  it("refuses a Content-Length over the limit with 413", async () => {
    const reply = await raw(
      url,
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5242881\r\nConnection: close\r\n\r\n",
    );
    assert.match(reply, /^HTTP\/1\.1 413 /);
    assert.ok(reply.endsWith("\r\n\r\ncontent length too large (5242881>5242880)\n"), reply);
  });

  it("decodes the body as UTF-8 bytes, replacing invalid sequences", async () => {
    const body = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":1,"method":"test_echo","params":["a'),
      Buffer.from([0xff]),
      Buffer.from('"]}'),
    ]);
    const r = await send(url, { body });
    assert.equal(r.body, '{"jsonrpc":"2.0","id":1,"result":"a\ufffd"}');
    const bad = await send(url, { body: Buffer.from([0x7b, 0xff, 0x7d]) });
    assert.equal(
      bad.body,
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}',
    );
  });

  it("survives aborted requests", async () => {
    const u = new URL(url);
    await new Promise<void>((resolve) => {
      const sock = connect(Number(u.port), u.hostname, () => {
        // Cut once the partial request has left: 6 of its 100 body bytes, then nothing.
        sock.write(
          'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"json',
          () => {
            sock.destroy();
            resolve();
          },
        );
      });
    });
    const r = await send(url, { body: CALL });
    assert.equal(r.body, '{"jsonrpc":"2.0","id":1,"result":"hi"}');
  });
});

describe("body limit", () => {
  let server: Server;
  let url: string;
  before(async () => {
    ({ server, url } = await start({ bodyLimit: 64 }));
  });
  after(() => server.close());

  it("uses the configured limit in the 413 text", async () => {
    const r = await send(url, { body: "x".repeat(65) });
    assert.equal(r.status, 413);
    assert.equal(r.body, "content length too large (65>64)\n");
  });

  it("cuts a chunked body at the limit, as io.LimitReader", async () => {
    const head =
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
    const chunk = (s: string) => `${s.length.toString(16)}\r\n${s}\r\n`;
    const long = `{"jsonrpc":"2.0","id":1,"method":"test_echo","params":["${"y".repeat(40)}"]}`;
    const cut = await raw(url, `${head}${chunk(long)}0\r\n\r\n`);
    assert.match(cut, /^HTTP\/1\.1 200 /);
    assert.ok(
      cut.endsWith('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}'),
      cut,
    );
    // A complete message within the limit is answered; the bytes past it are never read.
    const fits = `${CALL}${" ".repeat(20)}garbage`;
    const ok = await raw(url, `${head}${chunk(fits)}0\r\n\r\n`);
    assert.ok(ok.endsWith('{"jsonrpc":"2.0","id":1,"result":"hi"}'), ok);
  });
});

describe("vhosts and CORS", () => {
  let server: Server;
  let url: string;
  before(async () => {
    ({ server, url } = await start({
      vhosts: ["localhost"],
      corsOrigins: ["https://app.example"],
    }));
  });
  after(() => server.close());

  it("refuses unknown host names with 403, passes IPs and listed names", async () => {
    const bad = await send(url, {
      headers: { host: "evil.example", "content-type": "application/json" },
      body: CALL,
    });
    assert.equal(bad.status, 403);
    assert.equal(bad.body, "invalid host specified\n");
    for (const host of ["localhost:8545", "LOCALHOST", "127.0.0.1:1", "[::1]:80"]) {
      const r = await send(url, {
        headers: { host, "content-type": "application/json" },
        body: CALL,
      });
      assert.equal(r.status, 200, host);
    }
  });

  it("answers preflights for allowed origins", async () => {
    const r = await send(url, {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      },
    });
    assert.equal(r.status, 204);
    assert.equal(r.headers["access-control-allow-origin"], "https://app.example");
    assert.equal(r.headers["access-control-allow-methods"], "POST");
    assert.equal(r.headers["access-control-allow-headers"], "content-type");
    assert.equal(r.headers["access-control-max-age"], "600");
    const denied = await send(url, {
      method: "OPTIONS",
      headers: { origin: "https://other.example", "access-control-request-method": "POST" },
    });
    assert.equal(denied.status, 204);
    assert.equal(denied.headers["access-control-allow-origin"], undefined);
  });

  it("marks actual requests from allowed origins", async () => {
    const r = await send(url, {
      headers: { origin: "https://app.example", "content-type": "application/json" },
      body: CALL,
    });
    assert.equal(r.headers["access-control-allow-origin"], "https://app.example");
    assert.equal(r.body, '{"jsonrpc":"2.0","id":1,"result":"hi"}');
  });
});

describe("parseMediaType", () => {
  it("follows Go's mime.ParseMediaType closely enough for geth's check", () => {
    assert.equal(parseMediaType(" Application/JSON ; charset=UTF-8"), "application/json");
    assert.equal(parseMediaType('application/json; charset="utf-8"'), "application/json");
    assert.equal(parseMediaType("application/json; a=1; a=2"), undefined);
    assert.equal(parseMediaType("application/json; =x"), undefined);
    assert.equal(parseMediaType(""), undefined);
    assert.equal(parseMediaType(undefined), undefined);
  });
});
