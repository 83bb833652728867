// The public rate limit and clients on this machine: dev exempts them (a local node), serve and
// replica do not (a proxy in front of them makes every client local).
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { test } from "node:test";
import { createDispatcher } from "../rpc/dispatch.ts";
import type { RequestContext } from "../rpc/method.ts";
import { isLoopback } from "../util/loopback.ts";
import { createEdge } from "./edgeServer.ts";
import { DEFAULT_POLICY } from "./policy.ts";

test("loopback addresses: 127.0.0.0/8 and ::1, IPv4-mapped too", () => {
  for (const a of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"])
    assert.equal(isLoopback(a), true, a);
  for (const a of ["10.0.0.1", "192.0.2.7", "::ffff:192.0.2.7", "fe80::1", "1.127.0.0", "unknown"])
    assert.equal(isLoopback(a), false, a);
});

function edge(exemptLoopback: boolean | undefined) {
  return createEdge({
    dispatcher: createDispatcher({}),
    methods: {},
    policy: DEFAULT_POLICY,
    apiKeys: new Map(),
    publicRateLimit: { rate: 1, burst: 2 },
    ...(exemptLoopback === undefined ? {} : { exemptLoopback }),
    limits: {
      bodyLimit: 1024,
      headerTimeoutMs: 1000,
      requestReadTimeoutMs: 1000,
      idleTimeoutMs: 1000,
      maxConnections: 1,
      corsOrigins: undefined,
    },
    metrics: null,
    health: () => ({ live: true, ready: true, reasons: [] }),
  });
}

/** The HTTP statuses of `n` public calls of 3 from `address` (a bucket of 2 holds none). */
function statuses(e: ReturnType<typeof edge>, address: string, n: number): number[] {
  const req = { socket: { remoteAddress: address } } as unknown as IncomingMessage;
  const ctx = e.route("/", req) as RequestContext;
  const calls = [1, 2, 3].map(() => ({ method: "eth_chainId", params: [] }));
  return Array.from({ length: n }, () => ctx.admit?.(calls)?.status ?? 200);
}

test("exemptLoopback: clients on this machine are not limited, every other client is", () => {
  const e = edge(true);
  assert.deepEqual(statuses(e, "127.0.0.1", 3), [200, 200, 200]);
  assert.deepEqual(statuses(e, "::1", 3), [200, 200, 200]);
  assert.deepEqual(statuses(e, "192.0.2.7", 2), [429, 429]);
  assert.deepEqual(statuses(e, "::ffff:10.1.2.3", 1), [429]);
});

test("without it (the default) loopback clients are limited as any other", () => {
  for (const e of [edge(false), edge(undefined)]) {
    assert.deepEqual(statuses(e, "127.0.0.1", 2), [429, 429]);
    assert.deepEqual(statuses(e, "192.0.2.7", 1), [429]);
  }
});
