// `raw-http`: hand-written HTTP/1.1 on a raw socket (request smuggling shapes, bad chunks,
// pipelining), which node:http would refuse to send.
import { envelope } from "./calls.ts";
import { toJson } from "./json.ts";
import { pickRoute, postBytes, postExpect } from "./requests.ts";
import type { Rng } from "./rng.ts";
import type { CaseEnv, RawCase } from "./types.ts";

export function rawHttp(rng: Rng, env: CaseEnv, index: number): RawCase {
  const route = pickRoute(rng, env);
  const body = Buffer.from(toJson(envelope(rng, env, 1)));
  const pub = (s: number[]) => (route.public ? [...s, 429] : s);
  const variant = rng.pick([
    "random-bytes",
    "bad-request-line",
    "huge-header",
    "conflicting-length",
    "length-and-chunked",
    "bad-chunk",
    "bad-header-chars",
    "http2-preface",
    "http10",
    "pipelined",
    "absolute-form",
    "expect-continue",
    "no-host",
    "bad-transfer-encoding",
  ]);
  const base = {
    index,
    kind: "raw-http" as const,
    variant,
    transport: "raw" as const,
    after: "read" as const,
    holdMs: 0,
    jsonrpc: true,
  };
  const one = (data: Buffer, expect: number[], responses = 1): RawCase => ({
    ...base,
    steps: [{ data, delayMs: 0 }],
    responses,
    expect,
  });
  const head = (extra: string) =>
    Buffer.from(
      `POST ${route.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${extra}\r\n`,
      "latin1",
    );
  switch (variant) {
    case "random-bytes":
      return one(rng.bytes(rng.range(1, 2000)), [400, 431, 505], 0);
    case "bad-request-line":
      return one(
        Buffer.from(
          rng.pick([
            "GARBAGE\r\n\r\n",
            "POST\r\n\r\n",
            "POST / HTTP/9.9\r\n\r\n",
            "POST / FOO/1.1\r\n\r\n",
            " / HTTP/1.1\r\n\r\n",
            "POST  /  HTTP/1.1\r\n\r\n",
            "\r\n\r\n\r\n",
          ]),
          "latin1",
        ),
        [400, 505],
        0,
      );
    case "huge-header":
      return one(
        head(
          `X-Big: ${"a".repeat(rng.range(17_000, 80_000))}\r\nContent-Length: ${body.length}\r\n`,
        ),
        [431, 400],
        0,
      );
    case "conflicting-length":
      return one(
        Buffer.concat([
          head(`Content-Length: ${body.length}\r\nContent-Length: ${body.length + 1}\r\n`),
          body,
        ]),
        [400],
        0,
      );
    case "length-and-chunked":
      return one(
        Buffer.concat([
          head(`Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n`),
          body,
        ]),
        pub([400, 200]),
        0,
      );
    case "bad-chunk":
      return one(
        Buffer.concat([
          head("Transfer-Encoding: chunked\r\n"),
          Buffer.from(
            rng.pick([
              "zz\r\nabc\r\n0\r\n\r\n",
              "5\r\nabcdefgh\r\n0\r\n\r\n",
              "-1\r\n\r\n",
              "ffffffffffffffffff\r\n",
            ]),
          ),
        ]),
        [400, 413],
        0,
      );
    case "bad-header-chars":
      return one(
        Buffer.concat([
          head(`X-Bad: a\u0000b\r\nX-Ünï: c\r\nContent-Length: ${body.length}\r\n`),
          body,
        ]),
        [400],
        0,
      );
    case "http2-preface":
      return one(Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), [400, 505], 0);
    case "http10":
      return one(
        Buffer.from(
          `POST ${route.path} HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.toString("latin1")}`,
          "latin1",
        ),
        postExpect(route, body, false),
      );
    case "pipelined": {
      const n = rng.range(2, 6);
      const reqs = Array.from({ length: n }, () =>
        postBytes(route, Buffer.from(toJson(envelope(rng, env, rng.int(1000))))),
      );
      const all = Buffer.concat(reqs);
      return one(all, [...postExpect(route, all, false)], n);
    }
    case "absolute-form":
      return one(
        Buffer.concat([
          Buffer.from(
            `POST http://127.0.0.1${route.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
          ),
          body,
        ]),
        postExpect(route, body, false),
      );
    case "expect-continue":
      return one(
        Buffer.concat([head(`Expect: 100-continue\r\nContent-Length: ${body.length}\r\n`), body]),
        postExpect(route, body, false),
      );
    case "no-host":
      return one(
        Buffer.concat([
          Buffer.from(
            `POST ${route.path} HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
          ),
          body,
        ]),
        pub([400, 200]),
        0,
      );
    default:
      return one(
        Buffer.concat([
          head(
            rng.pick([
              "Transfer-Encoding: chunked, identity\r\n",
              "Transfer-Encoding: gzip\r\n",
              "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
              "Transfer-Encoding: xchunked\r\n",
            ]),
          ),
          Buffer.from(`${body.length.toString(16)}\r\n`),
          body,
          Buffer.from("\r\n0\r\n\r\n"),
        ]),
        pub([400, 200, 501]),
        0,
      );
  }
}
