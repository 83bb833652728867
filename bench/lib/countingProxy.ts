// An HTTP proxy in front of a JSON-RPC upstream that counts what passes: HTTP requests, and the
// JSON-RPC calls inside them by method (a batch counts each of its calls). Used to tell how many
// upstream requests a follower makes per block. With `latencyMs` it plays a WAN upstream: every
// request is held latencyMs / 2 before it is forwarded and its answer latencyMs / 2 before it is
// sent back, so each round trip takes latencyMs more than on loopback; every request's times are
// kept (`requests()`) so that a bench can tell which of them overlapped (round trips).
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";

export type ProxyCounts = { requests: number; calls: number; byMethod: Map<string, number> };

/** One request as the proxy saw it: when it came, when its answer left, its calls' methods. */
export type ProxiedRequest = {
  readonly start: number;
  end: number | undefined;
  readonly methods: readonly string[];
};

export type CountingProxy = {
  readonly url: string;
  /** Counts since the last reset. */
  counts(): ProxyCounts;
  reset(): void;
  /** Every request since the proxy started (performance.now() times), in arrival order. */
  requests(): readonly ProxiedRequest[];
  close(): Promise<void>;
};

const sleep = (ms: number) =>
  ms <= 0 ? Promise.resolve() : new Promise<void>((r) => setTimeout(r, ms));

/** Forwards every POST to `target` (its path, whatever the request's) on keep-alive sockets. */
export async function startCountingProxy(
  target: string,
  opts: { readonly latencyMs?: number } = {},
): Promise<CountingProxy> {
  const upstream = new URL(target);
  const half = (opts.latencyMs ?? 0) / 2;
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  let counts: ProxyCounts = { requests: 0, calls: 0, byMethod: new Map() };
  const log: ProxiedRequest[] = [];
  const count = (body: string): string[] => {
    counts.requests++;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return []; // forwarded as is; the upstream answers the parse error
    }
    const methods: string[] = [];
    for (const call of Array.isArray(parsed) ? parsed : [parsed]) {
      const method = (call as { method?: unknown }).method;
      const name = typeof method === "string" ? method : "(none)";
      methods.push(name);
      counts.calls++;
      counts.byMethod.set(name, (counts.byMethod.get(name) ?? 0) + 1);
    }
    return methods;
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    const start = performance.now();
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks);
      const entry: ProxiedRequest = { start, end: undefined, methods: count(body.toString()) };
      log.push(entry);
      await sleep(half);
      const answered = (status: number, type: string, text: Buffer) => {
        void sleep(half).then(() => {
          res.writeHead(status, { "content-type": type });
          res.end(text);
          entry.end = performance.now();
        });
      };
      const out = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: upstream.pathname,
          method: "POST",
          agent,
          headers: {
            "content-type": req.headers["content-type"] ?? "application/json",
            "content-length": body.length,
          },
        },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on("data", (c: Buffer) => parts.push(c));
          answer.on("end", () =>
            answered(
              answer.statusCode ?? 502,
              answer.headers["content-type"] ?? "application/json",
              Buffer.concat(parts),
            ),
          );
        },
      );
      out.on("error", () => answered(502, "text/plain", Buffer.alloc(0)));
      out.end(body);
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    counts: () => counts,
    reset() {
      counts = { requests: 0, calls: 0, byMethod: new Map() };
    },
    requests: () => log,
    close() {
      agent.destroy();
      server.closeAllConnections();
      return new Promise((ok) => server.close(() => ok()));
    },
  };
}

/** The state reads a follower makes for what it executes (not its block fetches). */
export const STATE_METHODS = new Set([
  "eth_getBalance",
  "eth_getTransactionCount",
  "eth_getCode",
  "eth_getStorageAt",
  "eth_getProof",
]);

/**
 * How many round trips `requests` took: a request that starts while none of the others is in
 * flight begins a new one (requests that overlap one in flight ride on its round trip).
 */
export function roundTrips(requests: readonly ProxiedRequest[]): number {
  const sorted = [...requests].sort((a, b) => a.start - b.start);
  let trips = 0;
  let busyUntil = Number.NEGATIVE_INFINITY;
  for (const r of sorted) {
    if (r.start >= busyUntil) trips++;
    busyUntil = Math.max(busyUntil, r.end ?? Number.POSITIVE_INFINITY);
  }
  return trips;
}
