// Every rule of the edge, over real HTTP against `flashnode serve` (its defaults) on the fixture
// archive.
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { after, describe, test } from "node:test";
import { importFixtureChain } from "../../test/utils/fixtures.ts";
import { startArchiveServer } from "../../test/utils/nodes.ts";
import { silentLogger, TEST_API_KEY, testFrontendOptions } from "../../test/utils/options.ts";
import { within } from "../../test/utils/within.ts";
import { createLogger } from "../log/logger.ts";
import type { RunningNode as RunningServer } from "../node/plan.ts";

const datadir = importFixtureChain("edge");
const servers: RunningServer[] = [];
async function serve(flags: string[]): Promise<RunningServer> {
  const s = await startArchiveServer({
    datadir,
    frontend: testFrontendOptions(flags, "serve"),
    logger: silentLogger,
  });
  servers.push(s);
  return s;
}
after(async () => {
  for (const s of servers) await s.close();
});

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text === "" ? undefined : JSON.parse(text);
  } catch {
    json = undefined; // transport errors are plain text, as geth's
  }
  return { status: res.status, headers: res.headers, text, json: json as Answer };
}
type Answer = { error?: { code: number; message: string }; result?: unknown[] } & Record<
  string,
  unknown
>;
const call = (method: string, params: unknown[] = [], id: number | string = 1) => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});

describe("edge", () => {
  test("eth_getBlockReceipts on public: HTTP 403, single and in a batch; dedicated serves it", async () => {
    const s = await serve([]);
    const single = await post(s.url, call("eth_getBlockReceipts", ["latest"], 7));
    assert.equal(single.status, 403);
    assert.deepEqual(single.json, {
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32001, message: "rpc method is not whitelisted" },
    });
    const batch = await post(s.url, [
      call("eth_chainId"),
      call("eth_getBlockReceipts", ["0x1"], 2),
    ]);
    assert.equal(batch.status, 403, "a batch holding one is refused whole");
    assert.deepEqual(batch.json.error, { code: -32001, message: "rpc method is not whitelisted" });
    const ok = await post(s.dedicatedUrl, call("eth_getBlockReceipts", ["0x1"]));
    assert.equal(ok.status, 200);
    assert.ok(Array.isArray(ok.json.result) && ok.json.result.length > 0);
    assert.equal(
      (
        await post(
          s.url,
          call("eth_getStorageAt", ["0x7dcd17433742f4c0ca53122ab541d0ba67fc27df", "0x0"]),
        )
      ).status,
      200,
    );
  });

  test("unknown API key: HTTP 401 with a JSON-RPC error body", async () => {
    const s = await serve([]);
    const r = await post(`${s.url}rpc/not-a-key-123`, call("eth_chainId"));
    assert.equal(r.status, 401);
    assert.equal(r.json.error?.code, -32000);
    assert.match(String(r.json.error?.message), /unknown API key/);
    // A malformed %-escape cannot name a key (found by the fuzzer: it used to crash the node).
    assert.equal((await post(`${s.url}rpc/%ff%fe`, call("eth_chainId"))).status, 401);
    assert.equal((await post(s.url, call("eth_chainId"))).status, 200, "still serving");
  });

  test("the policy is data: allow eth_getBlockReceipts(pending) on public, deny the rest", async () => {
    const policy = JSON.stringify({
      public: [
        { method: "eth_getBlockReceipts", selectors: ["pending"], action: "allow" },
        { method: "eth_getBlockReceipts", action: "deny" },
      ],
    });
    const s = await serve(["--policy", policy]);
    assert.equal((await post(s.url, call("eth_getBlockReceipts", ["pending"]))).status, 200);
    assert.equal((await post(s.url, call("eth_getBlockReceipts", ["latest"]))).status, 403);
    assert.equal(
      (await post(s.url, call("eth_getBlockReceipts", [{ blockNumber: "0x1" }]))).status,
      403,
    );
  });

  test("public rate limit: HTTP 429, -32016, Retry-After; a batch costs its calls; dedicated unlimited", async () => {
    const s = await serve(["--rate-limit", "1", "--rate-burst", "3"]);
    const codes: number[] = [];
    for (let i = 0; i < 4; i++) codes.push((await post(s.url, call("eth_chainId"))).status);
    assert.deepEqual(codes, [200, 200, 200, 429]);
    const limited = await post(s.url, call("eth_chainId", [], 9));
    assert.deepEqual(limited.json, {
      jsonrpc: "2.0",
      id: 9,
      error: { code: -32016, message: "over rate limit" },
    });
    assert.match(limited.headers.get("retry-after") ?? "", /^\d+$/);
    const s2 = await serve(["--rate-limit", "1", "--rate-burst", "3"]);
    const batch = await post(s2.url, [
      call("eth_chainId", [], 1),
      call("eth_chainId", [], 2),
      call("eth_chainId", [], 3),
      call("eth_chainId", [], 4),
    ]);
    assert.equal(batch.status, 429, "a batch of 4 exceeds a bucket of 3");
    assert.deepEqual(batch.json, {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32016, message: "over rate limit" },
    });
    assert.match(batch.headers.get("retry-after") ?? "", /^[1-9]\d*$/);
    const fits = await post(
      s2.url,
      [1, 2, 3].map((i) => call("eth_chainId", [], i)),
    );
    assert.equal(fits.status, 200, "a refused batch spends nothing; 3 calls fit the bucket");
    assert.equal((await post(s2.url, call("eth_chainId"))).status, 429, "and the bucket is empty");
    for (let i = 0; i < 10; i++)
      assert.equal((await post(s.dedicatedUrl, call("eth_chainId"))).status, 200);
  });

  test("per-key limits from --key-limits", async () => {
    const s = await serve([
      "--key-limits",
      JSON.stringify({ [TEST_API_KEY]: { rate: 1, burst: 2 } }),
    ]);
    const codes: number[] = [];
    for (let i = 0; i < 3; i++)
      codes.push((await post(s.dedicatedUrl, call("eth_chainId"))).status);
    assert.deepEqual(codes, [200, 200, 429]);
  });

  test("transport limits: 413, 415, 405", async () => {
    const s = await serve(["--body-limit", "1000"]);
    const big = await post(s.url, JSON.stringify(call("eth_chainId", ["x".repeat(2000)])));
    assert.equal(big.status, 413);
    assert.match(big.text, /content length too large \(\d+>1000\)/);
    assert.equal(
      (await post(s.url, call("eth_chainId"), { "content-type": "text/plain" })).status,
      415,
    );
    const put = await fetch(s.url, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(put.status, 405);
  });

  test("batch response limit → -32003 for the rest; request timeout → -32002", async () => {
    const s = await serve(["--response-limit", "3000"]);
    const r = await post(
      s.url,
      Array.from({ length: 6 }, (_, i) => call("eth_getBlockByNumber", ["0x1", true], i)),
    );
    const errors = (
      r.json as unknown as Array<{ error?: { code: number; message: string } }>
    ).filter((x) => x.error);
    assert.ok(
      errors.length > 0 &&
        errors.every((e) => e.error!.code === -32003 && e.error!.message === "response too large"),
    );
    const t = await serve(["--request-timeout", "1ms"]);
    const slow = await post(
      t.dedicatedUrl,
      Array.from({ length: 300 }, (_, i) =>
        call("eth_getBlockByNumber", [`0x${(i % 54).toString(16)}`, true], i),
      ),
    );
    const timedOut = (
      slow.json as unknown as Array<{ error?: { code: number; message: string } }>
    ).filter((x) => x.error?.code === -32002);
    assert.ok(timedOut.length > 0, "later calls of a long batch time out");
    assert.equal(timedOut[0]!.error!.message, "request timed out");
  });

  test("CORS preflight for browser dapps", async () => {
    const s = await serve(["--cors", "https://app.example"]);
    const pre = await fetch(s.url, {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get("access-control-allow-origin"), "https://app.example");
    const other = await fetch(s.url, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    assert.equal(other.headers.get("access-control-allow-origin"), null);
    const r = await fetch(s.url, {
      method: "POST",
      headers: { origin: "https://app.example", "content-type": "application/json" },
      body: JSON.stringify(call("eth_chainId")),
    });
    assert.equal(r.headers.get("access-control-allow-origin"), "https://app.example");
    // serve's default (a provider's): no CORS fields at all.
    const plain = await serve([]);
    const none = await fetch(plain.url, {
      method: "POST",
      headers: { origin: "https://app.example", "content-type": "application/json" },
      body: JSON.stringify(call("eth_chainId")),
    });
    assert.equal(none.headers.get("access-control-allow-origin"), null);
  });

  test("metrics move as requests are served; health and readiness", async () => {
    const s = await serve(["--rate-limit", "1", "--rate-burst", "2"]);
    const scrape = async () => (await fetch(`${s.url}metrics`)).text();
    const value = (text: string, series: string) => {
      const line = text.split("\n").find((l) => l.startsWith(series));
      return line === undefined ? 0 : Number(line.split(" ").at(-1));
    };
    const before = await scrape();
    await post(s.dedicatedUrl, call("eth_chainId"));
    await post(s.dedicatedUrl, call("eth_getStorageAt", ["0xzz", "0x0"]));
    await post(s.url, call("eth_getBlockReceipts", ["latest"]));
    for (let i = 0; i < 3; i++) await post(s.url, call("eth_chainId"));
    await post(`${s.url}rpc/unknown-key-1`, call("eth_chainId"));
    const afterText = await scrape();
    const req = 'flashnode_rpc_requests_total{method="eth_chainId",tier="dedicated"}';
    assert.equal(value(afterText, req) - value(before, req), 1);
    assert.equal(
      value(
        afterText,
        'flashnode_rpc_errors_total{method="eth_getStorageAt",tier="dedicated",code="-32602"}',
      ),
      1,
    );
    assert.equal(
      value(
        afterText,
        'flashnode_http_forbidden_total{tier="public",method="eth_getBlockReceipts"}',
      ),
      1,
    );
    assert.ok(value(afterText, 'flashnode_http_rate_limited_total{tier="public"}') >= 1);
    assert.equal(value(afterText, "flashnode_http_unauthorized_total"), 1);
    assert.equal(value(afterText, "flashnode_head_block_number"), 54);
    assert.ok(value(afterText, "flashnode_store_size_bytes") > 0);
    assert.match(
      afterText,
      /flashnode_rpc_request_duration_seconds_bucket\{le="0.001",method="eth_chainId",tier="dedicated"\}/,
    );
    assert.equal((await fetch(`${s.url}healthz`)).status, 200);
    const ready = await fetch(`${s.url}readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { ready: true, reasons: [] });
  });

  test("structured logs: calls and refusals at debug, as JSON lines, without API keys", async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger("debug", {
      write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
    });
    const s = await startArchiveServer({
      datadir,
      frontend: testFrontendOptions(["--rate-limit", "1", "--rate-burst", "1"], "serve"),
      logger,
    });
    servers.push(s);
    await post(s.dedicatedUrl, call("eth_getStorageAt", ["0xzz", "0x0"]));
    await post(s.url, call("eth_getBlockReceipts", ["latest"]));
    await post(s.url, call("eth_chainId"));
    await post(s.url, call("eth_chainId"));
    await post(`${s.url}rpc/unknown-key-2`, call("eth_chainId"));
    const find = (msg: string) => lines.find((l) => l.msg === msg);
    assert.equal(find("serving JSON-RPC")?.level, 30, "startup at info");
    assert.deepEqual(pick(find("call"), ["level", "module", "method", "tier", "code"]), {
      level: 20,
      module: "rpc",
      method: "eth_getStorageAt",
      tier: "dedicated",
      code: -32602,
    });
    assert.deepEqual(pick(find("forbidden (403)"), ["module", "tier", "method"]), {
      module: "edge",
      tier: "public",
      method: "eth_getBlockReceipts",
    });
    assert.equal(find("rate limited (429)")?.tier, "public");
    assert.ok(find("unknown API key (401)") !== undefined);
    for (const l of lines) assert.equal(l.name, "flashnode");
    assert.ok(!JSON.stringify(lines).includes(TEST_API_KEY), "keys never reach the log");
  });

  test("connection cap and header timeout: idle or slow clients cannot hold the server", async () => {
    // The cap on a server whose header timeout outlasts the test: only the cap can close a
    // connection there. The header timeout on another, of 1 s.
    const capped = await serve(["--max-connections", "2", "--header-timeout", "600s"]);
    const slow = await serve(["--header-timeout", "1s"]);
    // The close listener is attached before connecting: a refused socket closes at once.
    const open = (url: string) =>
      new Promise<{ socket: Socket; closed: Promise<void>; isClosed: () => boolean }>(
        (resolve, reject) => {
          let isClosed = false;
          const socket = connect(Number(new URL(url).port), "127.0.0.1");
          const closed = new Promise<void>((done) =>
            socket.on("close", () => {
              isClosed = true;
              done();
            }),
          );
          socket.on("error", reject);
          socket.resume(); // read what the server sends (a 408), so its close is seen
          socket.on("connect", () => resolve({ socket, closed, isClosed: () => isClosed }));
        },
      );
    const a = await open(capped.url);
    const b = await open(capped.url);
    a.socket.write("POST / HTTP/1.1\r\nHost: x\r\n"); // headers never finished
    const third = await open(capped.url);
    await within(third.closed, "a connection over the cap closed");
    assert.ok(!a.isClosed() && !b.isClosed(), "the two under the cap stay open");
    // Opened after `a`, on the 1 s server: cut by its header timeout while `a` waits on.
    const cut = await open(slow.url);
    cut.socket.write("POST / HTTP/1.1\r\nHost: x\r\n");
    await within(cut.closed, "a client that never finishes its headers cut");
    assert.ok(!a.isClosed(), "cut by its own server's 1 s header timeout, not a default one");
    a.socket.destroy();
    b.socket.destroy();
    await within(Promise.all([a.closed, b.closed]), "the clients' close");
    assert.equal((await post(capped.url, call("eth_chainId"))).status, 200, "served again after");
  });
});

function pick(o: Record<string, unknown> | undefined, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, o?.[k]]));
}
