// An HTTP proxy in front of a JSON-RPC upstream that counts what passes: HTTP requests, and the
// JSON-RPC calls inside them by method (a batch counts each of its calls). Used to tell how many
// upstream requests a follower makes per block.
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";

export type ProxyCounts = { requests: number; calls: number; byMethod: Map<string, number> };

export type CountingProxy = {
  readonly url: string;
  /** Counts since the last reset. */
  counts(): ProxyCounts;
  reset(): void;
  close(): Promise<void>;
};

/** Forwards every POST to `target` (its path, whatever the request's) on keep-alive sockets. */
export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  let counts: ProxyCounts = { requests: 0, calls: 0, byMethod: new Map() };
  const count = (body: string) => {
    counts.requests++;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return; // forwarded as is; the upstream answers the parse error
    }
    for (const call of Array.isArray(parsed) ? parsed : [parsed]) {
      const method = (call as { method?: unknown }).method;
      const name = typeof method === "string" ? method : "(none)";
      counts.calls++;
      counts.byMethod.set(name, (counts.byMethod.get(name) ?? 0) + 1);
    }
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      count(body.toString("utf8"));
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
          res.writeHead(answer.statusCode ?? 502, {
            "content-type": answer.headers["content-type"] ?? "application/json",
          });
          answer.pipe(res);
        },
      );
      out.on("error", () => {
        res.writeHead(502);
        res.end();
      });
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
    close() {
      agent.destroy();
      server.closeAllConnections();
      return new Promise((ok) => server.close(() => ok()));
    },
  };
}
