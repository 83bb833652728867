// `rpc-key`: POSTs and WebSocket upgrades to `/rpc/<key>` with unknown keys and odd key paths.
import { envelope } from "./calls.ts";
import { toJson } from "./json.ts";
import { httpRequestBytes, JSON_HEADERS } from "./requests.ts";
import type { Rng } from "./rng.ts";
import type { CaseEnv, FuzzCase } from "./types.ts";

function randomKey(rng: Rng): string {
  return rng.weighted<() => string>([
    [6, () => rng.hex(rng.pick([8, 16, 32]))],
    [2, () => Buffer.from(rng.bytes(rng.range(4, 40))).toString("base64url")],
    [1, () => "0"],
  ])();
}

export function rpcKey(rng: Rng, env: CaseEnv, index: number): FuzzCase {
  const body = Buffer.from(toJson(envelope(rng, env, 1)));
  const odd = rng.chance(0.25);
  const path = odd
    ? rng.pick([
        "/rpc/",
        "/rpc",
        `/rpc/${rng.hex(16)}/extra`,
        `/rpc/${rng.hex(16)}?key=1`,
        "/rpc/%00",
        "/rpc/%ff%fe",
        "/rpc/..%2f",
        `/rpc/${"k".repeat(rng.range(1000, 6000))}`,
        `/RPC/${rng.hex(16)}`,
        `//rpc/${rng.hex(16)}`,
        ...(env.dedicatedPath === undefined
          ? []
          : [
              `${env.dedicatedPath}x`,
              env.dedicatedPath.slice(0, -1),
              env.dedicatedPath.toUpperCase(),
            ]),
      ])
    : `/rpc/${randomKey(rng)}`;
  const expect = odd ? [env.badKeyStatus, 400, 401, 404] : [env.badKeyStatus];
  // The dedicated key itself uppercased may be the key (hex digits only): then 200 is right.
  if (env.dedicatedPath !== undefined && path.toLowerCase() === env.dedicatedPath.toLowerCase())
    expect.push(200);
  const variant = odd ? "odd-path" : "random-key";
  if (rng.chance(0.1)) {
    // The WebSocket upgrade on an unknown key is refused the same way.
    const key = rng.bytes(16).toString("base64");
    const head = httpRequestBytes(
      "GET",
      path,
      {
        Upgrade: "websocket",
        Connection: "Upgrade",
        "Sec-WebSocket-Key": key,
        "Sec-WebSocket-Version": "13",
      },
      Buffer.alloc(0),
    );
    return {
      index,
      kind: "rpc-key",
      variant: `ws-${variant}`,
      transport: "raw",
      steps: [{ data: head, delayMs: 0 }],
      after: "read",
      holdMs: 0,
      responses: 1,
      expect: [...expect, 400],
      jsonrpc: false,
    };
  }
  return {
    index,
    kind: "rpc-key",
    variant,
    transport: "http",
    method: "POST",
    path,
    headers: JSON_HEADERS,
    body,
    chunked: false,
    expect,
    jsonrpc: true,
    mayDrop: false,
  };
}
