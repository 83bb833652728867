// HTTP transport cases: `oversized` bodies, `content-type`, `http-method` and `http-misc`
// (other paths and methods).
import { envelope } from "./calls.ts";
import { toJson } from "./json.ts";
import { httpRequestBytes, JSON_HEADERS, jsonPost, pickRoute } from "./requests.ts";
import type { Rng } from "./rng.ts";
import { BODY_LIMIT, type CaseEnv, type FuzzCase, type HttpCase } from "./types.ts";
import { junkString } from "./values.ts";

/** A > 5 MiB body, shared by every case that needs one (generating it per case costs). */
let bigBody: Buffer | undefined;
function oversizedBody(): Buffer {
  if (bigBody === undefined) {
    const pad = " ".repeat(BODY_LIMIT + 1024 - 64);
    bigBody = Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]${pad}}`);
  }
  return bigBody;
}

export function oversized(rng: Rng, env: CaseEnv, index: number): FuzzCase {
  const route = pickRoute(rng, env);
  const variant = rng.weighted<string>([
    [6, "declared"],
    [1, "real-body"],
    [1, "chunked"],
    [1, "exact-limit"],
    [1, "bad-length"],
  ]);
  const base = { index, kind: "oversized" as const, variant };
  const pub = (s: number[]) => (route.public ? [...s, 429] : s);
  switch (variant) {
    case "declared": {
      // Claims a huge body and sends a little: the answer must not wait for the rest.
      const len = rng.pick([
        BODY_LIMIT + 1,
        BODY_LIMIT * 2,
        2 ** 32,
        2 ** 40,
        Number.MAX_SAFE_INTEGER,
      ]);
      const head = httpRequestBytes(
        "POST",
        route.path,
        { "Content-Type": "application/json", "Content-Length": String(len) },
        Buffer.from('{"jsonrpc":"2.0"'),
      );
      return {
        ...base,
        transport: "raw",
        steps: [{ data: head, delayMs: 0 }],
        after: "read",
        holdMs: 0,
        responses: 1,
        expect: pub([413, 400]),
        jsonrpc: false,
      };
    }
    case "real-body":
      return jsonPost(base, route, oversizedBody(), { mayDrop: true });
    case "chunked":
      // Without a length the server reads up to the limit and answers a parse error.
      return jsonPost(base, route, oversizedBody(), { chunked: true, mayDrop: true });
    case "exact-limit": {
      const head = '{"jsonrpc":"2.0","id":7,"method":"eth_blockNumber"}';
      return jsonPost(base, route, Buffer.from(head + " ".repeat(BODY_LIMIT - head.length)), {
        expectId: { value: 7 },
      });
    }
    default: {
      const len = rng.pick(["abc", "-1", "1.5", "0x10", "", "1 2", "99999999999999999999999"]);
      const head = httpRequestBytes(
        "POST",
        route.path,
        { "Content-Type": "application/json", "Content-Length": len },
        Buffer.from("{}"),
      );
      return {
        ...base,
        transport: "raw",
        steps: [{ data: head, delayMs: 0 }],
        after: "read",
        holdMs: 0,
        responses: 0,
        expect: pub([400, 413]),
        jsonrpc: false,
      };
    }
  }
}

const BAD_TYPES = [
  "text/plain",
  "text/html",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/jsonx",
  "application/xml",
  "json",
  "application/json/extra",
  "*/*",
  "application/json; charset",
  "application/json; a=1; a=2",
  "application/json;;charset=utf-8",
  "",
];
const GOOD_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json-rpc",
  "application/jsonrequest",
  "APPLICATION/JSON",
  "application/json;",
  'application/json; charset="utf-8"',
];

export function contentType(rng: Rng, env: CaseEnv, index: number): HttpCase {
  const route = pickRoute(rng, env);
  const body = Buffer.from(toJson(envelope(rng, env, 1)));
  const good = rng.chance(0.3);
  const missing = !good && rng.chance(0.15);
  const type = good ? rng.pick(GOOD_TYPES) : rng.pick(BAD_TYPES);
  const base = {
    index,
    kind: "content-type" as const,
    variant: good ? "accepted" : missing ? "missing" : "rejected",
  };
  const c = jsonPost(base, route, body, { headers: missing ? {} : { "content-type": type } });
  return good ? c : { ...c, expect: route.public ? [415, 429] : [415] };
}

export function httpMethod(rng: Rng, env: CaseEnv, index: number): HttpCase {
  const route = pickRoute(rng, env);
  const method = rng.weighted<string>([
    [4, "PUT"],
    [4, "DELETE"],
    [1, "PATCH"],
    [1, "OPTIONS"],
    [1, "HEAD"],
    [1, "GET"],
  ]);
  const withBody = rng.chance(0.7);
  const body = withBody ? Buffer.from(toJson(envelope(rng, env, 1))) : Buffer.alloc(0);
  let expect: number[];
  if (method === "PUT" || method === "DELETE") expect = [405];
  else if (method === "GET" && !withBody) expect = [200];
  else if (method === "HEAD") expect = [200, 405, 415];
  else expect = [200, 204, 405, 415];
  if (route.public) expect.push(429);
  if (route.public && withBody && method !== "PUT" && method !== "DELETE") expect.push(403);
  return {
    index,
    kind: "http-method",
    variant: method,
    transport: "http",
    method,
    path: route.path,
    headers: JSON_HEADERS,
    body,
    chunked: false,
    expect,
    jsonrpc: method !== "HEAD",
    mayDrop: false,
  };
}

export function httpMisc(rng: Rng, env: CaseEnv, index: number): HttpCase {
  const [method, path, expect, jsonrpc] = rng.pick<readonly [string, string, number[], boolean]>([
    ["GET", "/", [200, 429], true],
    ["GET", "/healthz", [200, 404], false],
    ["GET", "/metrics", [200, 404], false],
    ["GET", `/${rng.hex(4)}`, [404], false],
    ["GET", "/?x=1", [200, 415, 429], true],
    ["POST", "/healthz", [404, 405], false],
    [
      "POST",
      `/${junkString(rng)
        .slice(0, 50)
        .replace(/[^\x21-\x7e]/g, "_")}`,
      [404, 200, 415, 429, 400],
      true,
    ],
    ["GET", "/flashblocks", [404, 426, 400], false],
    ["GET", env.dedicatedPath ?? "/rpc/x", [200, 401, 404, 405], true],
  ]);
  const variant = `${method} ${path.length > 20 ? `${path.slice(0, 20)}…` : path}`;
  return {
    index,
    kind: "http-misc",
    variant,
    transport: "http",
    method,
    path,
    headers: {},
    body: Buffer.alloc(0),
    chunked: false,
    expect,
    jsonrpc,
    mayDrop: false,
  };
}
