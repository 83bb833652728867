import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { startTestDevNode } from "../../test/utils/devChain.ts";
import { FakeClock } from "../../test/utils/fakeClock.ts";
import type { FlashblockSource, SourceOptions } from "../../test/utils/flashblockSource.ts";
import { flashblockMessage, startFlashblockSource } from "../../test/utils/flashblockSource.ts";
import { bytesToHex } from "../util/hex.ts";
import { backoffDelay } from "./backoff.ts";
import type { Flashblock } from "./flashblock.ts";
import { brotliFrame } from "./flashblockFrame.ts";
import type {
  DisconnectReason,
  FlashblockStreamOptions,
  InvalidFrame,
} from "./flashblockStream.ts";
import { FlashblockStream, StreamUrlError } from "./flashblockStream.ts";

type Event =
  | { kind: "flashblock"; fb: Flashblock; encoding: string }
  | { kind: "connect" }
  | { kind: "disconnect"; reason: DisconnectReason }
  | { kind: "invalid"; frame: InvalidFrame };

/** The client's callbacks as a queue a test waits on. */
class Recorder {
  readonly #queue: Event[] = [];
  readonly #waiters: ((e: Event) => void)[] = [];

  push(e: Event): void {
    const w = this.#waiters.shift();
    if (w === undefined) this.#queue.push(e);
    else w(e);
  }

  next(): Promise<Event> {
    const e = this.#queue.shift();
    if (e !== undefined) return Promise.resolve(e);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** The next event of `kind`, skipping others. */
  async nextOf<K extends Event["kind"]>(kind: K): Promise<Extract<Event, { kind: K }>> {
    for (;;) {
      const e = await this.next();
      if (e.kind === kind) return e as Extract<Event, { kind: K }>;
    }
  }
}

const sources: FlashblockSource[] = [];
const clients: FlashblockStream[] = [];

async function startServer(opts: SourceOptions = {}): Promise<FlashblockSource> {
  const source = await startFlashblockSource(opts);
  sources.push(source);
  return source;
}

function startClient(
  url: string,
  opts: Partial<Omit<FlashblockStreamOptions, "url" | "handlers">> = {},
): { stream: FlashblockStream; events: Recorder } {
  const events = new Recorder();
  const stream = new FlashblockStream({
    url,
    random: () => 0,
    backoff: { initialMs: 20, maxMs: 200 },
    ...opts,
    handlers: {
      onFlashblock: (fb, _at, encoding) => events.push({ kind: "flashblock", fb, encoding }),
      onConnect: () => events.push({ kind: "connect" }),
      onDisconnect: (reason) => events.push({ kind: "disconnect", reason }),
      onInvalid: (frame) => events.push({ kind: "invalid", frame }),
    },
  });
  clients.push(stream);
  stream.start();
  return { stream, events };
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(sources.splice(0).map((s) => s.close()));
});

describe("backoffDelay", () => {
  it("doubles from the initial delay up to the cap, jittered within the upper half", () => {
    const opts = { initialMs: 100, maxMs: 10_000 };
    assert.deepEqual(
      [0, 1, 2, 3, 7, 8, 40].map((a) => backoffDelay(a, opts, () => 0)),
      [50, 100, 200, 400, 5_000, 5_000, 5_000],
    );
    assert.equal(
      backoffDelay(0, opts, () => 0.999_999),
      100,
    );
    assert.equal(
      backoffDelay(9, opts, () => 0.999_999),
      10_000,
    );
  });
});

// Every wait is on an event; the timeout only turns a hang (a bug) into a failure.
describe("FlashblockStream", { timeout: 120_000 }, () => {
  it("reads JSON text, brotli and binary JSON frames", async () => {
    const server = await startServer();
    const { stream, events } = startClient(server.url);
    const ws = await server.connection();
    await events.nextOf("connect");
    ws.send(flashblockMessage(100, 0));
    ws.send(brotliFrame(flashblockMessage(100, 1)));
    ws.send(Buffer.from(flashblockMessage(100, 2)), { binary: true });
    const got: [number, number, string][] = [];
    for (let i = 0; i < 3; i++) {
      const e = await events.nextOf("flashblock");
      got.push([e.fb.blockNumber, e.fb.index, e.encoding]);
    }
    assert.deepEqual(got, [
      [100, 0, "text"],
      [100, 1, "brotli"],
      [100, 2, "binary-json"],
    ]);
    const stats = stream.stats;
    assert.equal(stats.frames, 3);
    assert.equal(stats.flashblocks, 3);
    assert.equal(stats.invalid, 0);
    assert.equal(stats.connects, 1);
    assert.ok(stream.connected);
  });

  it("counts and skips malformed frames without dropping the connection", async () => {
    const server = await startServer();
    const { stream, events } = startClient(server.url);
    const ws = await server.connection();
    ws.send("{not json");
    ws.send(Buffer.from([0xde, 0xad, 0xbe, 0xef]), { binary: true });
    ws.send(JSON.stringify({ payload_id: "0x01", index: 0 }));
    ws.send(flashblockMessage(7, 0));
    const codes: string[] = [];
    for (let i = 0; i < 3; i++) codes.push((await events.nextOf("invalid")).frame.code);
    assert.deepEqual(codes, ["FRAME_JSON", "FRAME_BROTLI", "FLASHBLOCK_SHAPE"]);
    assert.equal((await events.nextOf("flashblock")).fb.blockNumber, 7);
    assert.equal(stream.stats.invalid, 3);
    assert.equal(stream.stats.frames, 4);
    assert.equal(stream.stats.disconnects, 0);
  });

  it("keeps going when a handler throws", async () => {
    const server = await startServer();
    const seen: number[] = [];
    let connected!: () => void;
    const open = new Promise<void>((r) => {
      connected = r;
    });
    let done!: () => void;
    const second = new Promise<void>((r) => {
      done = r;
    });
    const stream = new FlashblockStream({
      url: server.url,
      handlers: {
        onConnect: () => connected(),
        onFlashblock: (fb) => {
          seen.push(fb.index);
          if (fb.index === 0) throw new Error("handler bug");
          done();
        },
      },
    });
    clients.push(stream);
    stream.start();
    const ws = await server.connection();
    await open;
    ws.send(flashblockMessage(1, 0));
    ws.send(flashblockMessage(1, 1));
    await second;
    assert.deepEqual(seen, [0, 1]);
  });

  it("dials again after the connection is cut", async () => {
    const server = await startServer();
    const { stream, events } = startClient(server.url);
    const first = await server.connection();
    await events.nextOf("connect");
    first.terminate();
    const gone = await events.nextOf("disconnect");
    assert.equal(gone.reason.wasOpen, true);
    assert.ok(["remote-close", "error"].includes(gone.reason.kind), gone.reason.kind);
    assert.equal(gone.reason.retryInMs, 10);
    const second = await server.connection();
    await events.nextOf("connect");
    second.send(flashblockMessage(5, 0));
    assert.equal((await events.nextOf("flashblock")).fb.blockNumber, 5);
    assert.equal(stream.stats.reconnects, 1);
    assert.equal(stream.stats.connects, 2);
  });

  it("backs off while the endpoint refuses, and resets after a healthy connection", async () => {
    let accept = false;
    const server = await startServer({ accept: () => accept });
    const clock = new FakeClock();
    const { stream, events } = startClient(server.url, {
      clock,
      backoff: { initialMs: 100, maxMs: 1_000 },
      healthyAfterMs: 5_000,
      readTimeoutMs: 60_000,
    });
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { reason } = await events.nextOf("disconnect");
      assert.equal(reason.kind, "connect-failed");
      assert.match(reason.message, /503/);
      delays.push(reason.retryInMs);
      if (i === 4) accept = true;
      clock.advance(reason.retryInMs);
    }
    assert.deepEqual(delays, [50, 100, 200, 400, 500]);
    const ws = await server.connection();
    await events.nextOf("connect");
    ws.send(flashblockMessage(1, 0));
    await events.nextOf("flashblock");
    ws.send(flashblockMessage(1, 1));
    await events.nextOf("flashblock");
    // Not healthy long enough yet: the backoff goes on growing.
    ws.terminate();
    assert.equal((await events.nextOf("disconnect")).reason.retryInMs, 500);
    clock.advance(500);
    const again = await server.connection();
    await events.nextOf("connect");
    again.send(flashblockMessage(1, 2));
    await events.nextOf("flashblock");
    clock.advance(5_000);
    again.terminate();
    assert.equal((await events.nextOf("disconnect")).reason.retryInMs, 50);
    assert.equal(stream.stats.reconnects, 6);
  });

  // issue 30 item 9: the backoff grew to ~8 s, so /readyz said "stream down" for ~8 s after
  // the endpoint was back.
  it("by default, is dialled again within a second of an endpoint's return, however long it was away", async () => {
    let accept = false;
    const server = await startServer({ accept: () => accept });
    const clock = new FakeClock();
    const events = new Recorder();
    // The worst jitter, and no backoff given: the default a follower runs with.
    const stream = new FlashblockStream({
      url: server.url,
      clock,
      random: () => 0.999_999,
      readTimeoutMs: 60_000,
      handlers: {
        onFlashblock: () => {},
        onConnect: () => events.push({ kind: "connect" }),
        onDisconnect: (reason) => events.push({ kind: "disconnect", reason }),
      },
    });
    clients.push(stream);
    stream.start();
    const delays: number[] = [];
    for (let i = 0; i < 15; i++) {
      const { reason } = await events.nextOf("disconnect");
      assert.equal(reason.kind, "connect-failed");
      delays.push(reason.retryInMs);
      if (i === 14) accept = true;
      clock.advance(reason.retryInMs);
    }
    await server.connection();
    await events.nextOf("connect");
    assert.ok(
      delays.every((d) => d <= 1_000),
      `every wait within a second: ${delays.join(", ")}`,
    );
    // Not a tight loop on a dead endpoint either: once backed off, half a second at least.
    assert.ok(
      delays.slice(5).every((d) => d >= 500),
      `backed off: ${delays.join(", ")}`,
    );
    assert.equal(stream.stats.disconnectsBy["connect-failed"], 15);
  });

  it("closes a stream that sends nothing, although it answers pings, and dials again", async () => {
    const server = await startServer();
    const { stream, events } = startClient(server.url, {
      readTimeoutMs: 200,
      pingIntervalMs: 20,
      pongTimeoutMs: 60_000,
    });
    const ws = await server.connection();
    await events.nextOf("connect");
    const pinged = new Promise<void>((resolve) => ws.once("ping", () => resolve()));
    ws.send(flashblockMessage(1, 0));
    await events.nextOf("flashblock");
    await pinged;
    const { reason } = await events.nextOf("disconnect");
    assert.equal(reason.kind, "read-timeout");
    assert.equal(stream.stats.readTimeouts, 1);
    await server.connection();
    await events.nextOf("connect");
    assert.equal(stream.stats.reconnects, 1);
  });

  it("closes a stream that answers no pings after the pong deadline, and dials again", async () => {
    const server = await startServer({ autoPong: false });
    const clock = new FakeClock();
    const { stream, events } = startClient(server.url, {
      clock,
      readTimeoutMs: 60_000,
      pingIntervalMs: 1_000,
      pongTimeoutMs: 3_000,
    });
    const ws = await server.connection();
    await events.nextOf("connect");
    const pinged = new Promise<void>((resolve) => ws.once("ping", () => resolve()));
    clock.advance(1_000);
    await pinged;
    clock.advance(2_999);
    assert.equal(stream.stats.pingsMissed, 0);
    assert.ok(stream.connected);
    clock.advance(1);
    const { reason } = await events.nextOf("disconnect");
    assert.equal(reason.kind, "pong-timeout");
    assert.equal(stream.stats.pingsMissed, 1);
    clock.advance(reason.retryInMs);
    await server.connection();
    await events.nextOf("connect");
  });

  it("answers the read deadline by the clock, not by pings (fake clock)", async () => {
    const server = await startServer();
    const clock = new FakeClock();
    const { stream, events } = startClient(server.url, {
      clock,
      readTimeoutMs: 5_000,
      pingIntervalMs: 60_000,
    });
    const ws = await server.connection();
    await events.nextOf("connect");
    clock.advance(4_000);
    ws.send(flashblockMessage(1, 0));
    await events.nextOf("flashblock");
    clock.advance(4_999);
    assert.equal(stream.stats.readTimeouts, 0, "the frame at 4 s moved the deadline");
    clock.advance(1);
    assert.equal((await events.nextOf("disconnect")).reason.kind, "read-timeout");
  });

  it("refuses a URL that is not ws:// or wss://", () => {
    const handlers = { onFlashblock: () => {} };
    for (const url of ["http://127.0.0.1:1/ws", "not a url"])
      assert.throws(() => new FlashblockStream({ url, handlers }), StreamUrlError);
  });

  it("stops dialling once closed", async () => {
    const server = await startServer();
    const clock = new FakeClock();
    const { stream, events } = startClient(server.url, { clock });
    const ws = await server.connection();
    await events.nextOf("connect");
    ws.terminate();
    const { reason } = await events.nextOf("disconnect");
    await stream.close();
    clock.advance(reason.retryInMs * 10);
    assert.equal(stream.stats.reconnects, 0);
    assert.equal(stream.connected, false);
  });

  it("follows a flashnode dev node's /flashblocks: indexes run 0..n per block", async () => {
    const node = await startTestDevNode({ blockTimeMs: 1_000 });
    try {
      const { events } = startClient(`${node.wsUrl}flashblocks`);
      await events.nextOf("connect");
      // From the first index 0 on: three whole blocks.
      const blocks: { number: number; payloadId: string; parent: string; indexes: number[] }[] = [];
      while (blocks.length < 4) {
        const { fb } = await events.nextOf("flashblock");
        if (fb.index === 0) {
          assert.ok(fb.base !== undefined);
          const parent = bytesToHex(fb.base.parentHash);
          blocks.push({ number: fb.blockNumber, payloadId: fb.payloadId, parent, indexes: [0] });
        } else if (blocks.length > 0) {
          const b = blocks.at(-1)!;
          assert.equal(fb.blockNumber, b.number);
          assert.equal(fb.payloadId, b.payloadId);
          b.indexes.push(fb.index);
        }
      }
      for (const [i, b] of blocks.entries()) {
        if (i > 0) assert.equal(b.number, blocks[i - 1]!.number + 1);
        // Index 0's parent is the sealed block before it, as the node serves it.
        const res = await fetch(node.url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "eth_getBlockByNumber",
            params: [`0x${(b.number - 1).toString(16)}`, false],
          }),
        });
        const { result } = (await res.json()) as { result: { hash: string } };
        assert.equal(b.parent, result.hash);
        if (i < blocks.length - 1) {
          assert.deepEqual(
            b.indexes,
            b.indexes.map((_, j) => j),
          );
          assert.ok(b.indexes.length > 1, `block ${b.number}: ${b.indexes.length} flashblocks`);
        }
      }
    } finally {
      await Promise.all(clients.splice(0).map((c) => c.close()));
      await node.close();
    }
  });
});
