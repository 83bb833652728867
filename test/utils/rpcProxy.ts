// A JSON-RPC proxy for upstream tests: sits between flashnode's upstream client and a real node
// (anvil), counts HTTP requests, batches and calls, and misbehaves on demand as providers do:
// whole-request faults (HTTP 429 with Retry-After, an HTML 502 page, a hang), per-call answers
// in place of the node's (a rate-limit body, "missing trie node", a refused method or range),
// and batches refused.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type ProxyCall = {
  readonly id: unknown;
  readonly method: string;
  readonly params: unknown[];
};

/** A whole HTTP answer in place of the node's, or a request never answered. */
export type HttpFault =
  | { readonly status: number; readonly headers?: Record<string, string>; readonly body: string }
  | "hang";

export type RpcProxy = {
  readonly url: string;
  /** HTTP requests received (faulted ones included). */
  requests: number;
  /** Of which JSON-RPC batches. */
  batches: number;
  /** JSON-RPC calls received. */
  calls: number;
  /** Calls received, per method. */
  readonly methods: Map<string, number>;
  /** Every request's calls, in arrival order. */
  readonly log: Array<{ readonly batch: boolean; readonly calls: readonly ProxyCall[] }>;
  /** Asked before forwarding a request (n: its 1-based number): a fault answers it instead. */
  fault:
    | ((req: { calls: readonly ProxyCall[]; batch: boolean; n: number }) => HttpFault | undefined)
    | undefined;
  /** Asked per call: a JSON-RPC answer object ({error} or {result}) replaces the node's. */
  intercept:
    | ((call: ProxyCall) => { error: unknown } | { result: unknown } | undefined)
    | undefined;
  /**
   * Asked per request after `fault`: a promise the answer waits for (the test holds the
   * upstream's answer until it settles), or undefined.
   */
  hold:
    | ((req: { calls: readonly ProxyCall[]; batch: boolean }) => Promise<void> | undefined)
    | undefined;
  /** Answers every batch with HTTP 400 and a JSON-RPC error, as batch-less gateways do. */
  refuseBatches: boolean;
  /** Resolves once `n` requests in all have arrived. */
  waitForRequests(n: number): Promise<void>;
  resetCounts(): void;
  close(): Promise<void>;
};

export async function startRpcProxy(target: string): Promise<RpcProxy> {
  const sockets = new Set<Socket>();
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const proxy: RpcProxy = {
    url: "",
    requests: 0,
    batches: 0,
    calls: 0,
    methods: new Map(),
    log: [],
    fault: undefined,
    intercept: undefined,
    hold: undefined,
    refuseBatches: false,
    waitForRequests(n) {
      if (proxy.requests >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    resetCounts() {
      proxy.requests = 0;
      proxy.batches = 0;
      proxy.calls = 0;
      proxy.methods.clear();
      proxy.log.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ProxyCall | ProxyCall[];
    const batch = Array.isArray(body);
    const calls = batch ? body : [body];
    proxy.requests++;
    if (batch) proxy.batches++;
    proxy.calls += calls.length;
    for (const c of calls) proxy.methods.set(c.method, (proxy.methods.get(c.method) ?? 0) + 1);
    proxy.log.push({ batch, calls });
    for (const w of waiters.splice(0)) {
      if (proxy.requests >= w.n) w.resolve();
      else waiters.push(w);
    }
    const fault = proxy.fault?.({ calls, batch, n: proxy.requests });
    if (fault === "hang") return; // never answered; close() destroys the socket
    if (fault !== undefined) {
      res.writeHead(fault.status, { "content-type": "text/html", ...fault.headers });
      res.end(fault.body);
      return;
    }
    await proxy.hold?.({ calls, batch });
    if (batch && proxy.refuseBatches) {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          jsonrpc: "2.0",
          id: null,
          error: { code: -32600, message: "batch requests are not supported" },
        }),
      );
      return;
    }
    const answers: unknown[] = new Array(calls.length);
    const forward: number[] = [];
    calls.forEach((c, i) => {
      const own = proxy.intercept?.(c);
      if (own === undefined) forward.push(i);
      else answers[i] = { jsonrpc: "2.0", id: c.id, ...own };
    });
    if (forward.length > 0) {
      const out = forward.map((i) => calls[i]);
      const r = await fetch(target, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(batch ? out : out[0]),
      });
      const got = (await r.json()) as unknown;
      const list = Array.isArray(got) ? got : [got];
      // Batch answers may come in any order: match them by id.
      for (const i of forward)
        answers[i] = list.find((a) => (a as { id: unknown }).id === calls[i]!.id);
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(batch ? answers : answers[0]));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(e));
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  (proxy as { url: string }).url = `http://127.0.0.1:${port}/`;
  return proxy;
}
