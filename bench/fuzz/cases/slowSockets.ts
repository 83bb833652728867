// Socket timing cases: `slow-body` (dribbled requests that must be answered), `stall` (held
// sockets) and `dropped` (sockets the client cuts).
import { envelope } from "./calls.ts";
import { toJson } from "./json.ts";
import { pickRoute, postBytes, postExpect } from "./requests.ts";
import type { Rng } from "./rng.ts";
import type { CaseEnv, RawCase } from "./types.ts";

/** Pieces of `data` cut at random points. */
function cut(rng: Rng, data: Buffer, pieces: number): Buffer[] {
  const points = new Set<number>();
  while (points.size < Math.min(pieces - 1, data.length - 1))
    points.add(rng.range(1, data.length - 1));
  const sorted = [...points].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const p of [...sorted, data.length]) {
    out.push(data.subarray(prev, p));
    prev = p;
  }
  return out;
}

export function slowBody(rng: Rng, env: CaseEnv, index: number): RawCase {
  const route = pickRoute(rng, env);
  const body = Buffer.from(toJson(envelope(rng, env, 1)));
  const chunked = rng.chance(0.3);
  let data: Buffer;
  if (chunked) {
    const parts = cut(rng, body, rng.range(2, 6)).map((p) =>
      Buffer.concat([Buffer.from(`${p.length.toString(16)}\r\n`), p, Buffer.from("\r\n")]),
    );
    data = Buffer.concat([
      Buffer.from(
        `POST ${route.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      ),
      ...parts,
      Buffer.from("0\r\n\r\n"),
    ]);
  } else data = postBytes(route, body);
  const pieces = cut(rng, data, rng.range(3, 25));
  const budget = rng.range(300, 4000); // whole dribble, ms
  const steps = pieces.map((p, i) => ({
    data: p,
    delayMs: i === 0 ? 0 : Math.floor(budget / pieces.length),
  }));
  return {
    index,
    kind: "slow-body",
    variant: chunked ? "chunked" : "content-length",
    transport: "raw",
    steps,
    after: "read",
    holdMs: 0,
    responses: 1,
    expect: postExpect(route, body, false),
    jsonrpc: true,
  };
}

export function stall(rng: Rng, env: CaseEnv, index: number): RawCase {
  const route = pickRoute(rng, env);
  const data = postBytes(route, Buffer.from(toJson(envelope(rng, env, 1))));
  const headEnd = data.indexOf("\r\n\r\n") + 4;
  const variant = rng.pick(["connect-only", "mid-headers", "mid-body", "half-close"]);
  const at =
    variant === "mid-headers" ? rng.range(1, headEnd - 1) : rng.range(headEnd, data.length - 1);
  const steps = variant === "connect-only" ? [] : [{ data: data.subarray(0, at), delayMs: 0 }];
  const holdMs = rng.range(500, 3000);
  // A half-closed socket may get a 400; the others get nothing until the server's timeout.
  return {
    index,
    kind: "stall",
    variant,
    transport: "raw",
    steps,
    after: variant === "half-close" ? "read" : "hang",
    holdMs,
    responses: 0,
    expect: [400, 408],
    jsonrpc: false,
  };
}

export function dropped(rng: Rng, env: CaseEnv, index: number): RawCase {
  const route = pickRoute(rng, env);
  const heavy = rng.chance(0.2);
  const body = heavy
    ? Buffer.from(
        toJson(
          Array.from({ length: rng.range(100, 1000) }, (_, i) => ({
            jsonrpc: "2.0",
            id: i,
            method: "eth_getBlockByNumber",
            params: ["latest", true],
          })),
        ),
      )
    : Buffer.from(toJson(envelope(rng, env, 1)));
  const data = postBytes(route, body);
  const whole = rng.chance(0.4);
  const at = whole ? data.length : rng.range(1, data.length - 1);
  const variant = whole
    ? heavy
      ? "after-heavy-request"
      : "after-request"
    : at < data.indexOf("\r\n\r\n")
      ? "mid-headers"
      : "mid-body";
  // Cut before the answer could come, usually; an answer that beats the cut must still be right.
  const expect = whole ? postExpect(route, body, false) : [400];
  return {
    index,
    kind: "dropped",
    variant,
    transport: "raw",
    steps: [{ data: data.subarray(0, at), delayMs: 0 }],
    after: "close",
    holdMs: rng.int(30),
    responses: 0,
    expect,
    jsonrpc: whole,
  };
}
