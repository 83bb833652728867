import assert from "node:assert/strict";
import type { Server } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { ClientOptions } from "ws";
import { WebSocket } from "ws";
import { FakeClock } from "../../test/utils/fakeClock.ts";
import type { FakeFeed } from "../../test/utils/fakeFeed.ts";
import { createFakeFeed } from "../../test/utils/fakeFeed.ts";
import { WAIT_MS, within } from "../../test/utils/within.ts";
import type { MethodRegistry } from "../rpc/method.ts";
import { defineMethod, RawJsonBytes, required } from "../rpc/method.ts";
import { hexToBytes } from "../util/hex.ts";
import type { LogEvent } from "./types.ts";
import type { WebSocketHandle, WebSocketOptions } from "./wsServer.ts";
import { attachWebSocket } from "./wsServer.ts";

let release: () => void = () => {};
let onSlowStarted: (() => void) | undefined;
/** Resolves when the next test_slow call is running (and its connection has paused reading). */
const slowStarted = () =>
  new Promise<void>((resolve) => {
    onSlowStarted = resolve;
  });
const methods: MethodRegistry = {
  test_echo: defineMethod({ params: [required((raw) => raw)], handler: ([v]) => v }),
  test_tier: defineMethod({ params: [], handler: (_args, ctx) => ctx.tier }),
  test_bytes: defineMethod({ params: [], handler: () => new RawJsonBytes(Buffer.from('["é"]')) }),
  test_slow: defineMethod({
    params: [],
    handler: () =>
      new Promise<string>((resolve) => {
        release = () => resolve("done");
        onSlowStarted?.();
      }),
  }),
};

/** A ws client that queues what it receives. */
class Client {
  readonly ws: WebSocket;
  readonly #queue: string[] = [];
  readonly #waiters: ((m: string) => void)[] = [];
  readonly #closed: Promise<number>;

  constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on("message", (data) => {
      const text = String(data);
      const w = this.#waiters.shift();
      if (w === undefined) this.#queue.push(text);
      else w(text);
    });
    this.#closed = new Promise((resolve) => ws.on("close", (code) => resolve(code)));
  }

  next(ms = WAIT_MS): Promise<string> {
    const m = this.#queue.shift();
    if (m !== undefined) return Promise.resolve(m);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error("no message")), ms);
      this.#waiters.push((v) => {
        clearTimeout(t);
        resolve(v);
      });
    });
  }

  /** The close code, once the connection has closed. */
  closed(): Promise<number> {
    return within(this.#closed, "the connection's close");
  }

  get pending(): number {
    return this.#queue.length;
  }

  async call(method: string, params: unknown[] = [], id = 1): Promise<Record<string, unknown>> {
    this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return JSON.parse(await this.next());
  }
}

type Env = { server: Server; feed: FakeFeed; ws: WebSocketHandle; base: string };
let env: Env | undefined;
const clients: Client[] = [];

async function start(opts: Partial<WebSocketOptions> = {}): Promise<Env> {
  const server = createServer((_req, res) => res.writeHead(404).end());
  const feed = createFakeFeed();
  const ws = attachWebSocket(server, { feed, methods, ...opts });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  env = { server, feed, ws, base: `ws://127.0.0.1:${port}` };
  return env;
}

function open(url: string, opts: ClientOptions = {}): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, opts);
    const client = new Client(ws);
    ws.once("open", () => {
      clients.push(client);
      resolve(client);
    });
    ws.once("unexpected-response", (_req, res) => reject(new Error(`status ${res.statusCode}`)));
    ws.once("error", reject);
  });
}

async function until(cond: () => boolean, ms = WAIT_MS): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met");
    await sleep(5);
  }
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.ws.terminate();
  if (env !== undefined) {
    await env.ws.close();
    await new Promise((resolve) => env!.server.close(resolve));
    env = undefined;
  }
});

const notification = (id: unknown, result: string) =>
  `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":${result}}}`;

const fb = (blockNumber: number, index: number) => ({
  blockNumber,
  index,
  json: `{"payload_id":"0x01","index":${index},"diff":{},"metadata":{"block_number":${blockNumber}}}`,
});

describe("raw flashblocks stream", () => {
  it("sends every event verbatim, in order, from connection time on", async () => {
    const { base, feed } = await start();
    assert.equal(feed.listenerCount(), 0);
    const a = await open(`${base}/flashblocks`);
    feed.emitFlashblock(fb(7, 0));
    const b = await open(`${base}/flashblocks`);
    assert.equal(feed.listenerCount(), 1); // one shared listener
    for (let i = 1; i <= 5; i++) feed.emitFlashblock(fb(7, i));
    for (let i = 0; i <= 5; i++) assert.equal(await a.next(), fb(7, i).json);
    for (let i = 1; i <= 5; i++) assert.equal(await b.next(), fb(7, i).json);
    a.ws.close();
    b.ws.close();
    await until(() => feed.listenerCount() === 0);
  });

  it("disconnects a client that stops reading", async () => {
    const { base, feed, ws } = await start({
      streamLimits: { maxBufferedBytes: 256 * 1024, maxQueuedMessages: 1_000_000 },
    });
    const slow = await open(`${base}/flashblocks`);
    const fast = await open(`${base}/flashblocks`);
    slow.ws.pause();
    const big = { blockNumber: 1, index: 1, json: `"${"x".repeat(256 * 1024)}"` };
    // Enough to fill the kernel buffers on both ends, then the server's own.
    // Paced by the reader that keeps up: each message is sent once it has the one before.
    for (let i = 0; i < 400 && ws.connections === 2; i++) {
      feed.emitFlashblock(big);
      await fast.next();
    }
    assert.equal(ws.connections, 1);
    slow.ws.resume();
    assert.equal(await slow.closed(), 1006);
    assert.equal(fast.ws.readyState, WebSocket.OPEN);
  });

  it("cuts a client that does not answer pings, keeps one that does", async () => {
    const clock = new FakeClock();
    const { base, ws } = await start({ pingIntervalMs: 40, clock });
    const mute = await open(`${base}/flashblocks`, { autoPong: false });
    const live = await open(`${base}/flashblocks`);
    /** One heartbeat tick; returns once the server has read live's pong to it. */
    const tick = async () => {
      const pinged = new Promise((resolve) => live.ws.once("ping", resolve));
      clock.advance(40);
      await within(pinged, "a ping");
      // The pong left before this ping (ws answers a ping before emitting it): once this
      // ping's pong is back, the server has read the pong too.
      const back = new Promise((resolve) => live.ws.once("pong", resolve));
      live.ws.ping();
      await within(back, "the pong to our ping");
    };
    await tick();
    assert.equal(ws.connections, 2, "both pinged, neither cut yet");
    await tick();
    assert.equal(await mute.closed(), 1006, "no pong since the last tick: cut");
    for (let i = 0; i < 3; i++) await tick();
    assert.equal(live.ws.readyState, WebSocket.OPEN);
    assert.equal(ws.connections, 1);
  });
});

describe("JSON-RPC over WebSocket", () => {
  it("answers calls and batches, with the path's context", async () => {
    const { base } = await start({
      route: (p) => (p === "/" ? { tier: "public" } : p === "/rpc/k" ? { tier: "dedicated" } : 401),
    });
    const c = await open(`${base}/`);
    assert.deepEqual(await c.call("test_echo", ["hi"], 3), { jsonrpc: "2.0", id: 3, result: "hi" });
    assert.equal((await c.call("test_tier")).result, "public");
    c.ws.send(
      '[{"jsonrpc":"2.0","id":1,"method":"test_echo","params":[1]},{"jsonrpc":"2.0","id":2,"method":"nope"}]',
    );
    assert.equal(
      await c.next(),
      '[{"jsonrpc":"2.0","id":1,"result":1},{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"the method nope does not exist/is not available"}}]',
    );
    c.ws.send("{bad");
    assert.equal(
      await c.next(),
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}',
    );
    const d = await open(`${base}/rpc/k?x=1`);
    assert.equal((await d.call("test_tier")).result, "dedicated");
    await assert.rejects(open(`${base}/rpc/bad`), /status 401/);
  });

  it("sends a result kept as bytes in a text frame", async () => {
    const { base } = await start();
    const c = await open(`${base}/`);
    const frame = new Promise<[string, boolean]>((resolve) =>
      c.ws.once("message", (data, isBinary) => resolve([String(data), isBinary])),
    );
    c.ws.send('{"jsonrpc":"2.0","id":4,"method":"test_bytes"}');
    assert.deepEqual(await frame, ['{"jsonrpc":"2.0","id":4,"result":["é"]}', false]);
  });

  it("stops reading a connection with too many requests in progress", async () => {
    const { base } = await start({ maxInflight: 1 });
    const c = await open(`${base}/`);
    const control = await open(`${base}/`);
    const started = slowStarted();
    c.ws.send('{"jsonrpc":"2.0","id":1,"method":"test_slow"}');
    // Running: the connection has paused. The next frame is a TCP read of its own (frames read
    // in one chunk are still delivered after pause()).
    await within(started, "test_slow running");
    c.ws.send('{"jsonrpc":"2.0","id":2,"method":"test_echo","params":[2]}');
    // Calls on another connection, sent after it, are answered: the server was free to read
    // the paused one meanwhile, and did not.
    for (let i = 0; i < 3; i++) assert.equal((await control.call("test_echo", [i], 9)).result, i);
    assert.equal(c.pending, 0);
    release();
    assert.equal(await c.next(), '{"jsonrpc":"2.0","id":1,"result":"done"}');
    assert.equal(await c.next(), '{"jsonrpc":"2.0","id":2,"result":2}');
  });

  it("rejects unknown paths with 404 by default", async () => {
    const { base } = await start();
    await assert.rejects(open(`${base}/other`), /status 404/);
  });

  it("closes on an oversized message (1009)", async () => {
    const { base } = await start({ maxMessageBytes: 1000 });
    const c = await open(`${base}/`);
    c.ws.send(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "test_echo", params: ["x".repeat(2000)] }),
    );
    assert.equal(await c.closed(), 1009);
  });

  it("newHeads: subscribe, notify, unsubscribe", async () => {
    const { base, feed } = await start();
    const c = await open(`${base}/`);
    const sub = await c.call("eth_subscribe", ["newHeads"]);
    assert.match(String(sub.result), /^0x[1-9a-f][0-9a-f]*$/);
    feed.emitNewHead({ blockNumber: 1, hash: "0x1", json: '{"number":"0x1"}' });
    assert.equal(await c.next(), notification(sub.result, '{"number":"0x1"}'));
    assert.equal((await c.call("eth_unsubscribe", [sub.result], 2)).result, true);
    feed.emitNewHead({ blockNumber: 2, hash: "0x2", json: '{"number":"0x2"}' });
    // Nothing queued between: the next message is the reply to this call.
    assert.equal((await c.call("eth_unsubscribe", [sub.result], 3)).error !== undefined, true);
    assert.equal(feed.listenerCount(), 0);
  });

  it("logs: one notification per matching log", async () => {
    const { base, feed } = await start();
    const c = await open(`${base}/`);
    const A = `0x${"aa".repeat(20)}`;
    const B = `0x${"bb".repeat(20)}`;
    const T1 = `0x${"11".repeat(32)}`;
    const T2 = `0x${"22".repeat(32)}`;
    const sub = await c.call("eth_subscribe", [
      "logs",
      { address: [A, B], topics: [null, [T1, T2]] },
    ]);
    const log = (address: string, topics: string[], i: number): LogEvent => ({
      address: hexToBytes(address),
      topics: topics.map(hexToBytes),
      transactionHash: `0x${"aa".repeat(32)}`,
      json: `{"logIndex":"0x${i}"}`,
    });
    feed.emitLogs([
      log(A, [T1, T2], 0), // match
      log(A, [T1], 1), // too few topics
      log(`0x${"cc".repeat(20)}`, [T1, T1], 2), // other address
      log(B, [T2, T1], 3), // match
      log(B, [T2, T2, T1], 4), // match
    ]);
    assert.equal(await c.next(), notification(sub.result, '{"logIndex":"0x0"}'));
    assert.equal(await c.next(), notification(sub.result, '{"logIndex":"0x3"}'));
    assert.equal(await c.next(), notification(sub.result, '{"logIndex":"0x4"}'));
    assert.equal((await c.call("test_echo", [1], 9)).result, 1);
  });

  it("newFlashblocks: pushes the wire object as the result", async () => {
    const { base, feed } = await start();
    const c = await open(`${base}/`);
    const sub = await c.call("eth_subscribe", ["newFlashblocks"]);
    feed.emitFlashblock(fb(3, 0));
    feed.emitFlashblock(fb(3, 1));
    assert.equal(await c.next(), notification(sub.result, fb(3, 0).json));
    assert.equal(await c.next(), notification(sub.result, fb(3, 1).json));
  });

  it("unknown kind and bad filters get geth's errors", async () => {
    const { base } = await start();
    const c = await open(`${base}/`);
    assert.deepEqual((await c.call("eth_subscribe", ["newPendingThings"])).error, {
      code: -32601,
      message: 'no "newPendingThings" subscription in eth namespace',
    });
    assert.deepEqual((await c.call("eth_subscribe", ["logs", { fromBlock: "pending" }])).error, {
      code: -32602,
      message: "pending logs are not supported",
    });
  });

  it("sends a subscription's notifications only after the response with its id", async () => {
    const { base, feed } = await start();
    const c = await open(`${base}/`);
    const started = slowStarted();
    c.ws.send(
      '[{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]},{"jsonrpc":"2.0","id":2,"method":"test_slow"}]',
    );
    // The batch is running: subscribed, its response not sent yet.
    await within(started, "test_slow running");
    feed.emitNewHead({ blockNumber: 1, hash: "0x1", json: "1" });
    release();
    const batch = JSON.parse(await c.next()) as { result: unknown }[];
    assert.equal(batch[1]!.result, "done");
    assert.equal(await c.next(), notification(batch[0]!.result, "1"));
  });

  it("ends all subscriptions when the connection closes", async () => {
    const { base, feed, ws } = await start();
    const c = await open(`${base}/`);
    await c.call("eth_subscribe", ["newHeads"], 1);
    await c.call("eth_subscribe", ["logs"], 2);
    await c.call("eth_subscribe", ["newFlashblocks"], 3);
    assert.equal(feed.listenerCount(), 3);
    c.ws.close();
    await until(() => feed.listenerCount() === 0 && ws.connections === 0);
  });

  it("close() closes every socket with 1001 and removes listeners", async () => {
    const { base, feed, ws } = await start();
    const c = await open(`${base}/`);
    const s = await open(`${base}/flashblocks`);
    await c.call("eth_subscribe", ["newHeads"]);
    await ws.close();
    assert.equal(await c.closed(), 1001);
    assert.equal(await s.closed(), 1001);
    assert.equal(feed.listenerCount(), 0);
    assert.equal(ws.connections, 0);
  });
});
