// The upstream client against a real node (anvil) through a proxy that counts and misbehaves.
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import { freePort } from "../../bench/compare/peers.ts";
import { type Anvil, startAnvilUpstream } from "../../test/utils/anvilUpstream.ts";
import { pollUntil } from "../../test/utils/devChain.ts";
import { type RpcProxy, startRpcProxy } from "../../test/utils/rpcProxy.ts";
import { within } from "../../test/utils/within.ts";
import type { UpstreamHooks } from "./calls.ts";
import { UpstreamClient } from "./client.ts";
import {
  UpstreamCallError,
  UpstreamProtocolError,
  UpstreamRateLimitedError,
  UpstreamUnavailableError,
} from "./errors.ts";
import { type UpstreamOptions, upstreamOptions } from "./options.ts";

let anvil: Anvil;
let proxy: RpcProxy;
const clients: UpstreamClient[] = [];

before(async () => {
  anvil = await startAnvilUpstream();
  proxy = await startRpcProxy(anvil.url);
});
after(async () => {
  for (const c of clients) c.close();
  // A failed before() leaves these unset: its own error is the one to read.
  await proxy?.close();
  anvil?.stop();
});
beforeEach(() => {
  proxy.resetCounts();
  proxy.fault = undefined;
  proxy.intercept = undefined;
  proxy.refuseBatches = false;
});

function client(
  o: Partial<Omit<UpstreamOptions, "url">> = {},
  hooks?: UpstreamHooks,
  url?: string,
) {
  const c = new UpstreamClient(upstreamOptions(url ?? proxy.url, { retryBackoffMs: 5, ...o }), {
    ...(hooks === undefined ? {} : { hooks }),
  });
  clients.push(c);
  return c;
}

const ZERO = `0x${"00".repeat(20)}`;

test("calls issued together leave as one batch; identical concurrent calls share one", async () => {
  const c = client();
  const [a, b, d, n, bal] = await Promise.all([
    c.chainId(),
    c.chainId(),
    c.call("eth_chainId", []),
    c.blockNumber(),
    c.call("eth_getBalance", [ZERO, "latest"]),
  ]);
  assert.equal(a, 31337n);
  assert.equal(b, 31337n);
  assert.equal(d, "0x7a69");
  assert.equal(typeof n, "bigint");
  assert.equal(typeof bal, "string");
  assert.equal(proxy.requests, 1);
  assert.equal(proxy.batches, 1);
  assert.equal(proxy.calls, 3);
  assert.equal(c.stats().deduplicated, 2);
  assert.equal(c.stats().batching, "yes");
});

test("an upstream that refuses batches gets one call per request from then on", async () => {
  proxy.refuseBatches = true;
  const c = client();
  const answers = await Promise.all([c.chainId(), c.blockNumber(), c.call("net_version", [])]);
  assert.equal(answers[0], 31337n);
  assert.equal(c.stats().batching, "no");
  const refused = proxy.batches;
  assert.equal(refused, 1);
  await Promise.all([c.chainId(), c.blockNumber()]);
  assert.equal(proxy.batches, refused, "no batch after the refusal");
});

test("a batch refused for one method it holds (proxyd's 403 -32001) is split, batching stays on", async () => {
  const notWhitelisted = {
    status: 403,
    headers: { "content-type": "application/json" },
    body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"rpc method is not whitelisted"}}',
  };
  proxy.fault = ({ calls }) =>
    calls.some((c) => c.method === "eth_getBlockReceipts") ? notWhitelisted : undefined;
  const c = client();
  const [id, receipts] = await Promise.allSettled([
    c.chainId(),
    c.call("eth_getBlockReceipts", ["latest"]),
  ]);
  assert.deepEqual(id, { status: "fulfilled", value: 31337n });
  assert.equal(receipts.status, "rejected");
  assert.ok(receipts.reason instanceof UpstreamCallError);
  assert.equal(receipts.reason.rpcCode, -32001);
  assert.notEqual(c.stats().batching, "no");
  proxy.resetCounts();
  await Promise.all([c.chainId(), c.blockNumber()]);
  assert.equal(proxy.batches, 1);
});

test("HTTP 429 is retried after the Retry-After the upstream asked for", async () => {
  proxy.fault = ({ n }) =>
    n === 1
      ? { status: 429, headers: { "retry-after": "1" }, body: "Too Many Requests" }
      : undefined;
  const delays: number[] = [];
  const c = client({}, { onRetry: (r) => delays.push(r.delayMs) });
  assert.equal(await c.chainId(), 31337n);
  assert.deepEqual(delays, [1000]);
  assert.equal(proxy.requests, 2);
  assert.equal(c.stats().retries, 1);
});

test("a rate-limit body (QuickNode's bare one, in HTTP 200) is retried", async () => {
  const quicknode =
    '{"code":-32007,"message":"100/second request limit reached - reduce calls per second or upgrade your account at quicknode.com"}';
  proxy.fault = ({ n }) =>
    n <= 2
      ? { status: 200, headers: { "content-type": "application/json" }, body: quicknode }
      : undefined;
  const reasons: string[] = [];
  const c = client({}, { onRetry: (r) => reasons.push(r.reason) });
  assert.equal(await c.chainId(), 31337n);
  assert.equal(reasons.length, 2);
  assert.match(reasons[0]!, /-32007/);
});

test("a batch item refused by a rate limit is retried alone; its neighbours are not", async () => {
  let limited = false;
  proxy.intercept = (call) => {
    if (call.method !== "eth_blockNumber" || limited) return undefined;
    limited = true;
    return {
      error: { code: 429, message: "Your app has exceeded its compute units per second capacity." },
    };
  };
  const c = client();
  const [id, n] = await Promise.all([c.chainId(), c.blockNumber()]);
  assert.equal(id, 31337n);
  assert.equal(typeof n, "bigint");
  assert.equal(proxy.methods.get("eth_chainId"), 1);
  assert.equal(proxy.methods.get("eth_blockNumber"), 2);
});

test("a rate limit that outlasts the retries is an UpstreamRateLimitedError", async () => {
  proxy.fault = () => ({
    status: 429,
    headers: { "content-type": "application/json" },
    body: '{"jsonrpc":"2.0","error":{"code":-32016,"message":"over rate limit"},"id":1}',
  });
  const c = client({ retries: 2 });
  await assert.rejects(c.chainId(), (e: unknown) => {
    assert.ok(e instanceof UpstreamRateLimitedError);
    assert.match(
      e.message,
      /^the upstream at 127\.0\.0\.1:\d+ is rate-limiting flashnode: .*over rate limit.* \(after 3 attempts\)/,
    );
    return true;
  });
  assert.equal(proxy.requests, 3);
});

test("an HTML error page is a one-line UpstreamProtocolError naming the host", async () => {
  const page =
    "<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n<center><h1>502 Bad Gateway</h1></center>\n<hr><center>nginx</center>\n</body>\n</html>\n";
  proxy.fault = () => ({ status: 502, body: page });
  const c = client({ retries: 1 });
  await assert.rejects(c.chainId(), (e: unknown) => {
    assert.ok(e instanceof UpstreamProtocolError);
    assert.doesNotMatch(e.message, /\n/);
    assert.match(
      e.message,
      /the upstream at 127\.0\.0\.1:\d+ answered HTTP 502 with an HTML page \("502 Bad Gateway"\), not JSON-RPC/,
    );
    return true;
  });
  assert.equal(proxy.requests, 2, "a gateway error is retried");
  proxy.resetCounts();
  proxy.fault = () => ({ status: 401, body: "<html><title>Unauthorized</title></html>" });
  await assert.rejects(c.chainId(), UpstreamProtocolError);
  assert.equal(proxy.requests, 1, "a 401 is not");
});

test("JSON that is neither a result nor an error is an UpstreamProtocolError", async () => {
  proxy.fault = () => ({ status: 200, body: '{"jsonrpc":"2.0","id":1}' });
  await assert.rejects(client().chainId(), /neither a result nor an error/);
});

test("an error the upstream returns keeps its code, message and data", async () => {
  const c = client();
  await assert.rejects(c.call("eth_getBalance", ["0x12", "latest"]), (e: unknown) => {
    assert.ok(e instanceof UpstreamCallError);
    assert.equal(typeof e.rpcCode, "number");
    assert.ok(e.rpcMessage.length > 0);
    assert.ok(e.message.startsWith(`the upstream at ${c.host} answered eth_getBalance with error`));
    return true;
  });
  assert.equal(proxy.requests, 1, "not retried");
});

test("a hung upstream fails within the call's budget", async () => {
  proxy.fault = () => "hang";
  const c = client({ timeoutMs: 200, retries: 5, deadlineMs: 60_000 });
  await assert.rejects(c.call("eth_chainId", [], { deadlineMs: 1_000 }), (e: unknown) => {
    assert.ok(e instanceof UpstreamUnavailableError);
    // The last attempt gets what is left of the budget when that is under 200 ms (timers fire
    // late on a loaded machine): the figure is at most 200, and the budget is what ended it.
    const ms = Number(/did not answer within (\d+) ms/.exec(e.message)?.[1]);
    assert.ok(ms > 0 && ms <= 200, e.message);
    assert.match(e.message, /would pass the call's 1000 ms budget|call budget of 1000 ms spent/);
    return true;
  });
});

test("a refused connection fails within the budget, after retries", async () => {
  const port = await freePort();
  const retries: number[] = [];
  const c = client(
    { retries: 3 },
    { onRetry: (r) => retries.push(r.attempt) },
    `http://127.0.0.1:${port}/`,
  );
  await assert.rejects(c.chainId(), (e: unknown) => {
    assert.ok(e instanceof UpstreamUnavailableError);
    assert.match(e.message, /refused the connection \(ECONNREFUSED\) \(after 4 attempts\)/);
    return true;
  });
  assert.deepEqual(retries, [1, 2, 3]);
});

test("close() fails what is waiting, and what comes after", async () => {
  proxy.fault = () => "hang";
  const c = client();
  const waiting = c.chainId();
  await proxy.waitForRequests(1);
  c.close();
  await assert.rejects(waiting, UpstreamUnavailableError);
  await assert.rejects(c.chainId(), /closed/);
});

test("an upstream that stops answering is down until it answers again, probed meanwhile", async () => {
  proxy.fault = () => ({ status: 503, body: "Service Unavailable" });
  const c = client({ retries: 0 });
  assert.deepEqual(c.reachability(), { reachable: true });
  await assert.rejects(c.blockNumber(), UpstreamUnavailableError);
  const down = c.reachability();
  assert.ok(!down.reachable);
  assert.match(down.reason, /answered HTTP 503/);
  proxy.resetCounts();
  proxy.fault = undefined;
  // Nothing more is asked of it: its probe finds it back.
  await pollUntil(
    async () => c.reachability().reachable,
    (up) => up,
    10_000,
  );
  assert.ok((proxy.methods.get("eth_chainId") ?? 0) >= 1);
});

test("a call waiting for its retry is sent at once when the upstream answers again", async () => {
  proxy.fault = () => ({ status: 503, body: "Service Unavailable" });
  // Its retry would wait 30 s.
  const c = client({ retries: 5, retryBackoffMs: 30_000 });
  const waiting = c.blockNumber();
  await pollUntil(
    async () => c.reachability().reachable,
    (up) => !up,
    10_000,
  );
  proxy.fault = undefined;
  assert.equal(typeof (await within(waiting, "the retried call", 10_000)), "bigint");
});
