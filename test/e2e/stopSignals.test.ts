// SIGTERM and SIGINT stop every role within 5 s whatever its peers are doing: a NATS that is
// not there (since the start, or gone), an upstream frozen with SIGSTOP or gone. The node exits
// and its datadir's LOCK goes with it. (A replica started while NATS was down once ignored
// SIGTERM and SIGINT until NATS came back: its followers waited for a connection that only the
// link's close, which came after them, would have ended.)
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { freePort } from "../../bench/compare/peers.ts";
import { DEFAULT_STREAMS } from "../../src/replica/streams.ts";
import { startAnvilUpstream } from "../utils/anvilUpstream.ts";
import { pollUntil, startTestDevNode } from "../utils/devChain.ts";
import { BIN, call, importFixtureChain, tempDatadir } from "../utils/fixtures.ts";
import { type NatsServer, startNatsServer } from "../utils/nats.ts";
import { captureOutput } from "../utils/processes.ts";
import { within } from "../utils/within.ts";

/** The rule: a stop asked for by a signal is done within this. */
const STOP_MS = 5_000;

type Run = { child: ChildProcess; out: () => string };

function run(args: string[]): Run {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const p = captureOutput(child);
  // Never left behind by a failing test.
  const kill = () => child.kill("SIGKILL");
  process.once("exit", kill);
  child.once("exit", () => process.off("exit", kill));
  return { child, out: p.all };
}

/** Waits until the process has printed `pattern` (failing with its output if it exits first). */
async function printed(r: Run, pattern: RegExp): Promise<RegExpExecArray> {
  const exited = once(r.child, "exit").then(() => undefined);
  const found = pollUntil(
    async () => pattern.exec(r.out()),
    (m) => m !== null,
    120_000,
    50,
  );
  const m = await Promise.race([found, exited]);
  if (m === undefined || m === null)
    throw new Error(`exited before printing ${pattern}:\n${r.out()}`);
  return m;
}

/** Sends `signal` and asserts the process is gone within STOP_MS, its LOCK released. */
async function stopsWithin(
  r: Run,
  datadir: string,
  signal: NodeJS.Signals,
): Promise<number | null> {
  assert.equal(r.child.exitCode, null, `still running before ${signal}:\n${r.out()}`);
  const exit = once(r.child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  const sent = performance.now();
  r.child.kill(signal);
  const [code, bySignal] = await within(exit, `exit after ${signal}`, 60_000);
  const ms = performance.now() - sent;
  assert.ok(ms <= STOP_MS, `${signal}: exited after ${Math.round(ms)} ms:\n${r.out()}`);
  assert.equal(bySignal, null, `ended by its own exit, not killed by ${signal}:\n${r.out()}`);
  assert.equal(existsSync(join(datadir, "LOCK")), false, `LOCK left behind:\n${r.out()}`);
  return code;
}

/** Until the node at `url` answers /readyz with 503 (it has noticed what it lacks). */
async function notReady(url: string): Promise<void> {
  await pollUntil(
    async () => (await fetch(`${url}readyz`)).status,
    (status) => status === 503,
    60_000,
    100,
  );
}

const BANNER = /JSON-RPC \(public\): +(http:\/\/\S+)/;
const NATS_DOWN = /cannot reach NATS/;

let nats: NatsServer;
before(async () => {
  nats = await startNatsServer();
});
after(async () => {
  await nats?.stop();
});

/** A NATS URL nothing listens on. */
async function silentNats(): Promise<string> {
  return `nats://127.0.0.1:${await freePort()}`;
}

test("dev and serve: SIGINT and SIGTERM stop them, exit 0", async () => {
  const devDir = tempDatadir("stop-dev");
  const dev = run(["dev", "--datadir", devDir, "--port", "0"]);
  await printed(dev, BANNER);
  assert.equal(await stopsWithin(dev, devDir, "SIGTERM"), 0);
  const served = importFixtureChain("stop-serve");
  const serve = run(["serve", "--datadir", served, "--port", "0", "--rpc-workers", "2"]);
  await printed(serve, BANNER);
  assert.equal(await stopsWithin(serve, served, "SIGINT"), 0);
});

test("dev --nats, NATS absent since the start: SIGTERM stops it", async () => {
  const datadir = tempDatadir("stop-dev-nats");
  const r = run(["dev", "--datadir", datadir, "--port", "0", "--nats", await silentNats()]);
  await printed(r, BANNER);
  await printed(r, NATS_DOWN);
  assert.equal(await stopsWithin(r, datadir, "SIGTERM"), 0);
});

test("a new replica waiting for an absent NATS (no banner yet): SIGTERM stops it", async () => {
  const datadir = tempDatadir("stop-replica-new");
  const r = run(["replica", "--nats", await silentNats(), "--datadir", datadir, "--port", "0"]);
  await printed(r, NATS_DOWN);
  assert.equal(await stopsWithin(r, datadir, "SIGTERM"), 0);
});

test("a replica restarted on its datadir while NATS is down: SIGTERM, then SIGINT, stop it", async () => {
  const prefix = "stopreplica";
  const dev = await startTestDevNode({
    blockTimeMs: 300,
    flashblockIntervalMs: 100,
    nats: { servers: [nats.url], streams: { ...DEFAULT_STREAMS, prefix } },
  });
  const datadir = tempDatadir("stop-replica");
  const args = ["replica", "--nats", nats.url, "--nats-prefix", prefix, "--datadir", datadir];
  try {
    const first = run([...args, "--port", "0", "--rpc-workers", "1"]);
    const [, url] = await printed(first, BANNER);
    await pollUntil(
      async () => Number(await call(url!, "eth_blockNumber")),
      (n) => n >= 2,
    );
    assert.equal(await stopsWithin(first, datadir, "SIGINT"), 0);
  } finally {
    await dev.close();
  }
  await nats.stop();
  try {
    // As in the report: its RPC processes (--rpc-workers 2), NATS down from the start.
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      const r = run([...args, "--port", "0", "--rpc-workers", "2"]);
      await printed(r, BANNER);
      await printed(r, NATS_DOWN);
      assert.equal(await stopsWithin(r, datadir, signal), 0);
    }
  } finally {
    await nats.restart();
  }
});

test("a fork whose upstream is frozen (SIGSTOP): SIGTERM stops it", async () => {
  const anvil = await startAnvilUpstream();
  const datadir = tempDatadir("stop-fork");
  try {
    const r = run(["dev", "--fork-url", anvil.url, "--datadir", datadir, "--port", "0"]);
    const [, url] = await printed(r, BANNER);
    const head = Number(await call(url!, "eth_blockNumber"));
    await pollUntil(
      async () => Number(await call(url!, "eth_blockNumber")),
      (n) => n > head,
    );
    anvil.child.kill("SIGSTOP");
    try {
      // The next block reads the upstream (the system contracts' slots) and waits for it: its
      // flashblocks stop, and /readyz says the pending view is stale.
      await notReady(url!);
      assert.equal(await stopsWithin(r, datadir, "SIGTERM"), 0);
    } finally {
      anvil.child.kill("SIGCONT");
    }
  } finally {
    anvil.stop();
  }
});

test("a follower whose upstream is gone: SIGTERM stops it", async () => {
  const upstream = await startTestDevNode({ blockTimeMs: 500, flashblockIntervalMs: 100 });
  const datadir = tempDatadir("stop-follow");
  const r = run([
    "follow",
    ...["--rpc", upstream.url, "--flashblocks", `${upstream.wsUrl}flashblocks`],
    ...["--datadir", datadir, "--port", "0"],
  ]);
  let url: string | undefined;
  try {
    [, url] = await printed(r, BANNER);
  } finally {
    await upstream.close();
  }
  // It has noticed: /readyz says why it is not ready.
  await notReady(url!);
  assert.equal(await stopsWithin(r, datadir, "SIGTERM"), 0);
});
