import assert from "node:assert/strict";
import cluster from "node:cluster";
import { once } from "node:events";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { MessageChannel, Worker } from "node:worker_threads";
import {
  type Api,
  Channel,
  clusterWorkerEndpoint,
  DeadlineError,
  PeerGoneError,
  portEndpoint,
  RemoteError,
  workerEndpoint,
} from "./channel.ts";
import { RpcError } from "./errors.ts";

type Server = {
  requests: {
    echo: {
      request: { value: bigint; bytes: Uint8Array };
      reply: { value: bigint; bytes: Uint8Array };
    };
    fail: { request: null; reply: never };
    hang: { request: null; reply: null };
    die: { request: null; reply: null };
  };
  events: { poke: number };
};
type Client = { requests: Record<string, never>; events: { seen: number } };

/** A peer written without the channel module: it speaks the envelope by hand. */
const RAW_PEER = `
const { parentPort } = require("node:worker_threads");
parentPort.on("message", (m) => {
  if (m.fn !== 1) return;
  if (m.t === "evt") { parentPort.postMessage({ fn: 1, t: "evt", kind: "seen", body: m.body }); return; }
  if (m.kind === "echo") parentPort.postMessage({ fn: 1, t: "ok", id: m.id, body: m.body });
  else if (m.kind === "fail") parentPort.postMessage({ fn: 1, t: "err", id: m.id, error: { name: "RpcError", message: "nonce too low", code: "RPC", rpcCode: -32000, data: "0x01" } });
  else if (m.kind === "die") process.exit(3);
  // "hang": never answers
});
`;

test("requests and replies keep bigint and bytes; events arrive in order", async () => {
  const worker = new Worker(RAW_PEER, { eval: true });
  const ch = new Channel<Server, Client>(workerEndpoint(worker), {
    peer: "the peer",
    deadlineMs: 0,
  });
  const reply = await ch.request("echo", { value: 2n ** 70n, bytes: new Uint8Array([1, 2, 3]) });
  assert.equal(reply.value, 2n ** 70n);
  assert.deepEqual([...reply.bytes], [1, 2, 3]);
  const seen: number[] = [];
  ch.on("seen", (n) => seen.push(n));
  const three = new Promise<void>((resolve) => ch.on("seen", (n) => n === 3 && resolve()));
  for (const n of [1, 2, 3]) ch.emit("poke", n);
  await three;
  assert.deepEqual(seen, [1, 2, 3]);
  await worker.terminate();
});

test("a handler's error crosses with its code and data", async () => {
  const worker = new Worker(RAW_PEER, { eval: true });
  const ch = new Channel<Server, Client>(workerEndpoint(worker), {
    peer: "the peer",
    deadlineMs: 0,
  });
  const err = await ch.request("fail", null).then(
    () => assert.fail("resolved"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof RemoteError);
  assert.equal(err.message, "nonce too low");
  assert.equal(err.code, "RPC");
  assert.equal(err.rpcCode, -32000);
  assert.equal(err.data, "0x01");
  assert.equal(err.remoteName, "RpcError");
  await worker.terminate();
});

test("a killed peer rejects every waiting call, and later calls at once", async () => {
  const worker = new Worker(RAW_PEER, { eval: true });
  const ch = new Channel<Server, Client>(workerEndpoint(worker), {
    peer: "the peer",
    deadlineMs: 0,
  });
  const waiting = [ch.request("hang", null), ch.request("hang", null)];
  const dying = ch.request("die", null);
  for (const p of [...waiting, dying]) {
    const e = await p.then(
      () => assert.fail("resolved"),
      (err: unknown) => err,
    );
    assert.ok(e instanceof PeerGoneError);
    assert.match(e.message, /the peer is gone: exited \(code 3\)/);
  }
  assert.equal(ch.closed, true);
  await assert.rejects(ch.request("echo", { value: 1n, bytes: new Uint8Array() }), PeerGoneError);
});

test("a terminated thread rejects what waits on it", async () => {
  const worker = new Worker(RAW_PEER, { eval: true });
  const ch = new Channel<Server, Client>(workerEndpoint(worker), {
    peer: "the peer",
    deadlineMs: 0,
  });
  const waiting = ch.request("hang", null);
  await worker.terminate();
  await assert.rejects(waiting, PeerGoneError);
});

test("a deadline rejects the call, and a late reply is ignored", async () => {
  const { port1, port2 } = new MessageChannel();
  const near = new Channel<Server, Client>(portEndpoint(port1), { peer: "far", deadlineMs: 20 });
  const far = new Channel<Client, Server>(portEndpoint(port2), { peer: "near", deadlineMs: 0 });
  let release: () => void = () => {};
  const released = new Promise<void>((r) => {
    release = r;
  });
  far.handle("hang", async () => {
    await released;
    return null;
  });
  far.handle("echo", (b) => b);
  const e = await near.request("hang", null).then(
    () => assert.fail("resolved"),
    (err: unknown) => err,
  );
  assert.ok(e instanceof DeadlineError);
  assert.match(e.message, /far did not answer hang within 20 ms/);
  release();
  // The channel still works after a missed deadline; the late reply found no waiter.
  const r = await near.request("echo", { value: 5n, bytes: new Uint8Array([9]) }, 0);
  assert.equal(r.value, 5n);
  near.close();
  far.close();
  port1.close();
});

test("closing a channel rejects what waits; a handler's throw is the caller's rejection", async () => {
  const { port1, port2 } = new MessageChannel();
  const near = new Channel<Server, Client>(portEndpoint(port1), { peer: "far", deadlineMs: 0 });
  const far = new Channel<Client, Server>(portEndpoint(port2), { peer: "near", deadlineMs: 0 });
  far.handle("fail", () => {
    throw new RpcError(3, "out of gas", "0xdead");
  });
  const e = await near.request("fail", null).then(
    () => assert.fail("resolved"),
    (err: unknown) => err,
  );
  assert.ok(e instanceof RemoteError);
  assert.equal(e.rpcCode, 3);
  assert.equal(e.data, "0xdead");
  // A request of a kind nobody serves is an error, not a hang.
  await assert.rejects(
    (near as unknown as Channel<Api, Client>).request("nope", null),
    /no handler for nope/,
  );
  const waiting = near.request("hang", null);
  near.close("stopping");
  await assert.rejects(waiting, /far is gone: stopping/);
  far.close();
  port1.close();
});

test("a killed reader process rejects what the primary waits on", async () => {
  const dir = mkdtempSync(join(tmpdir(), "channel-"));
  const script = join(dir, "reader.cjs");
  // The reader answers "echo" and never answers "hang".
  writeFileSync(
    script,
    `process.on("message", (m) => {
      if (m && m.fn === 1 && m.t === "req" && m.kind === "echo")
        process.send({ fn: 1, t: "ok", id: m.id, body: m.body });
    });
    process.send({ fn: 1, t: "evt", kind: "seen", body: 1 });`,
  );
  cluster.setupPrimary({ exec: script, serialization: "advanced", silent: true });
  const worker = cluster.fork();
  const ch = new Channel<Server, Client>(clusterWorkerEndpoint(worker), {
    peer: "reader 0",
    deadlineMs: 0,
  });
  await new Promise<void>((resolve) => ch.on("seen", () => resolve()));
  const echoed = await ch.request("echo", { value: 7n, bytes: new Uint8Array([7]) });
  assert.equal(echoed.value, 7n);
  const waiting = ch.request("hang", null);
  worker.process.kill("SIGKILL");
  const e = await waiting.then(
    () => assert.fail("resolved"),
    (err: unknown) => err,
  );
  assert.ok(e instanceof PeerGoneError);
  assert.match(e.message, /reader 0 is gone/);
  if (!worker.isDead()) await once(worker, "exit");
});
