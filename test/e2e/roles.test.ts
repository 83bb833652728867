// What every role shows its operator the same way, through the CLI: a banner with the role,
// chain id, head, URLs and the policy in force; one "shutting down" line on Ctrl-C and exit 0;
// an unreachable NATS said within two seconds (and by /readyz); a datadir that holds another
// chain refused at start in one line with a non-zero exit (a replica, an import).
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { after, before, test } from "node:test";
import { freePort } from "../../bench/compare/peers.ts";
import { DEFAULT_STREAMS } from "../../src/replica/streams.ts";
import { pollUntil, startTestDevNode } from "../utils/devChain.ts";
import { dirContents } from "../utils/dirContents.ts";
import {
  BIN,
  CHAIN_RLP,
  call,
  GENESIS,
  importFixtureChain,
  tempDatadir,
} from "../utils/fixtures.ts";
import { type NatsServer, startNatsServer } from "../utils/nats.ts";
import { startReplicaNode } from "../utils/nodes.ts";
import { captureOutput } from "../utils/processes.ts";
import { within } from "../utils/within.ts";

type Run = { child: ChildProcess; out: () => string; err: () => string };

function run(args: string[]): Run {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const p = captureOutput(child);
  return { child, out: p.stdout, err: p.stderr };
}

/** Waits until the process has printed `pattern` (or exits first: then fails with its output). */
async function printed(r: Run, pattern: RegExp): Promise<RegExpExecArray> {
  const exited = once(r.child, "exit").then(() => undefined);
  const found = pollUntil(
    async () => pattern.exec(r.out() + r.err()),
    (m) => m !== null,
    120_000,
    50,
  );
  const m = await Promise.race([found, exited]);
  if (m === undefined || m === null)
    throw new Error(`exited before printing ${pattern}:\n${r.out()}\n${r.err()}`);
  return m;
}

/** The JSON log records a node printed (stdout is a pipe: records are JSON lines). */
function records(text: string): Array<Record<string, unknown>> {
  return text
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Ctrl-C: one "shutting down" record, exit code 0. */
async function interrupt(r: Run): Promise<void> {
  const exit = once(r.child, "exit") as Promise<[number | null, string | null]>;
  r.child.kill("SIGINT");
  const [code] = await exit;
  const lines = records(r.out()).filter((l) => l.msg === "shutting down");
  assert.equal(lines.length, 1, `one "shutting down" line:\n${r.out()}`);
  assert.equal(code, 0, r.err());
}

const common = ["--port", "0", "--rpc-workers", "1"];

let nats: NatsServer;
before(async () => {
  nats = await startNatsServer();
});
after(async () => {
  await nats?.stop();
});

test("dev: the banner names the role, chain id, head, URLs and the policy; Ctrl-C says it stops", async () => {
  const r = run(["dev", "--datadir", tempDatadir("roles-dev"), ...common]);
  try {
    await printed(r, /Public endpoints refuse eth_getBlockReceipts/);
    const out = r.out();
    assert.match(out, /\nflashnode dev\n/);
    assert.match(out, /Chain ID: 31337 {4}head: block \d+/);
    assert.match(out, /JSON-RPC \(public\): +http:\/\/127\.0\.0\.1:\d+\//);
    assert.match(out, /JSON-RPC \(dedicated\): +http:\/\/127\.0\.0\.1:\d+\/rpc\//);
  } finally {
    await interrupt(r);
  }
});

test("serve: the same banner, the policy in force, the same shutdown", async () => {
  const datadir = importFixtureChain("roles-serve");
  const r = run([
    "serve",
    "--datadir",
    datadir,
    ...common,
    "--policy",
    '{"public":[{"method":"*","action":"deny","selectors":["pending"]}]}',
  ]);
  try {
    await printed(r, /Method policy/);
    const out = r.out();
    assert.match(out, /\nflashnode serve\n/);
    // The fixture chain: chain id 3503995874084926, head 54 (imported).
    assert.match(out, /Chain ID: 3503995874084926 {4}head: block 54/);
    assert.match(out, /JSON-RPC \(public\): +http:\/\/127\.0\.0\.1:\d+\//);
    assert.match(out, /public: deny \* at pending/);
  } finally {
    await interrupt(r);
  }
});

test("replica: the same banner and shutdown; NATS named in the banner", async () => {
  const dev = await startTestDevNode({
    blockTimeMs: 500,
    flashblockIntervalMs: 100,
    nats: { servers: [nats.url], streams: DEFAULT_STREAMS },
  });
  const r = run([
    "replica",
    "--nats",
    nats.url,
    "--datadir",
    tempDatadir("roles-replica"),
    ...common,
  ]);
  try {
    await printed(r, /Public endpoints refuse eth_getBlockReceipts/);
    const out = r.out();
    assert.match(out, /\nflashnode replica\n/);
    assert.match(out, new RegExp(`Chain ID: ${dev.chainId} {4}head: block \\d+`));
    assert.match(out, new RegExp(`NATS JetStream: +${nats.url.replace(/[/.]/g, "\\$&")}`));
  } finally {
    await interrupt(r);
    await dev.close();
  }
});

/** A NATS URL nothing listens on. */
async function silentNats(): Promise<string> {
  return `nats://127.0.0.1:${await freePort()}`;
}

/** The first "cannot reach NATS" warning, and how long NATS had been unreachable then. */
async function unreachableWarning(r: Run): Promise<{ seconds: number; msg: string }> {
  await printed(r, /cannot reach NATS/);
  const line = records(r.out()).find((l) => String(l.msg).includes("cannot reach NATS"));
  assert.ok(line !== undefined, r.out());
  return { seconds: line.seconds as number, msg: String(line.msg) };
}

test("dev --nats with nothing listening warns (at 2 s), and /readyz says why", async () => {
  const url = await silentNats();
  const r = run(["dev", "--datadir", tempDatadir("roles-dev-nats"), ...common, "--nats", url]);
  try {
    const warning = await unreachableWarning(r);
    // Said with how long NATS has been out of reach: at 2 s by the node's schedule (asserted on
    // a fake clock in src/replica/downWatch.test.ts; a loaded machine may fire it late here).
    assert.ok(warning.seconds >= 2, `warned after ${warning.seconds} s`);
    assert.ok(warning.msg.includes(url), warning.msg);
    const [, base] = await printed(r, /JSON-RPC \(public\): +(\S+)/);
    const ready = await pollUntil(
      async () => {
        const res = await fetch(`${base}readyz`);
        return { status: res.status, body: await res.text() };
      },
      (x) => x.body.includes("NATS"),
      30_000,
      100,
    );
    assert.equal(ready.status, 503);
    assert.match(ready.body, /NATS at .* unreachable/);
  } finally {
    await interrupt(r);
  }
});

test("replica with nothing listening warns (at 2 s), and again while it lasts", async () => {
  const url = await silentNats();
  const r = run([
    "replica",
    "--nats",
    url,
    "--datadir",
    tempDatadir("roles-replica-nats"),
    ...common,
  ]);
  try {
    const warning = await unreachableWarning(r);
    // At 2 s by the node's schedule (src/replica/downWatch.test.ts), naming the URL.
    assert.ok(warning.seconds >= 2, `warned after ${warning.seconds} s`);
    assert.ok(warning.msg.includes(url), warning.msg);
    // Said again while it lasts.
    await pollUntil(
      async () => records(r.out()).filter((l) => String(l.msg).includes("cannot reach NATS")),
      (lines) => lines.length >= 2,
      60_000,
      200,
    );
  } finally {
    r.child.kill("SIGINT");
    await once(r.child, "exit");
  }
});

test("a replica started on another chain's datadir is refused in one line", async () => {
  const dev = await startTestDevNode({
    blockTimeMs: 500,
    flashblockIntervalMs: 100,
    nats: { servers: [nats.url], streams: { ...DEFAULT_STREAMS, prefix: "other" } },
  });
  // Another chain's archive: a replica's of a dev chain with another chain id (a dev chain's own
  // datadir is refused before its chain is looked at: the test below).
  const datadir = tempDatadir("roles-other-chain");
  const otherStreams = { ...DEFAULT_STREAMS, prefix: "other999" };
  const other = await startTestDevNode({
    chainId: 999n,
    blockTimeMs: 300,
    flashblockIntervalMs: 100,
    nats: { servers: [nats.url], streams: otherStreams },
  });
  const otherReplica = await startReplicaNode({
    datadir,
    nats: [nats.url],
    streams: otherStreams,
    flashblockIntervalMs: 100,
    safeDepth: 0,
    finalizedDepth: 0,
  });
  await pollUntil(
    async () => Number(await call(otherReplica.url, "eth_blockNumber")),
    (n) => n >= 1,
  );
  await otherReplica.close();
  await other.close();
  const r = run([
    "replica",
    "--nats",
    nats.url,
    "--nats-prefix",
    "other",
    "--datadir",
    datadir,
    ...common,
  ]);
  try {
    const [code] = (await once(r.child, "exit")) as [number | null];
    assert.notEqual(code, 0);
    const lines = r.err().trim().split("\n");
    assert.equal(lines.length, 1, r.err());
    assert.match(lines[0]!, /^flashnode: .* holds another chain .* than the block stream/);
  } finally {
    await dev.close();
  }
});

test("a replica on a dev sequencer's datadir is refused in one line, nothing written", async () => {
  const datadir = tempDatadir("roles-replica-on-dev");
  const dev = await startTestDevNode({ datadir, blockTimeMs: 200, flashblockIntervalMs: 100 });
  await pollUntil(
    async () => Number(await call(dev.url, "eth_blockNumber")),
    (n) => n >= 2,
  );
  await dev.close();
  const before = dirContents(datadir);
  // NATS out of reach, as in the report: the refusal does not wait for it.
  const r = run(["replica", "--nats", await silentNats(), "--datadir", datadir, ...common]);
  const exit = once(r.child, "exit") as Promise<[number | null]>;
  // A replica that took the datadir keeps running: it is killed, not left behind.
  const [code] = await within(exit, "the replica's exit", 60_000).finally(() =>
    r.child.kill("SIGKILL"),
  );
  assert.notEqual(code, 0, r.out());
  const lines = r.err().trim().split("\n");
  assert.equal(lines.length, 1, r.err());
  assert.match(
    lines[0]!,
    /^flashnode: .* holds a chain a dev sequencer writes, not one replicated/,
  );
  assert.deepEqual(dirContents(datadir), before, "the datadir is as it was");
});

test("an import into another chain's datadir is refused in one line", async () => {
  const datadir = tempDatadir("roles-import-other");
  const dev = await startTestDevNode({ datadir });
  await dev.close();
  const r = run(["import", "--genesis", GENESIS, "--datadir", datadir, CHAIN_RLP]);
  const [code] = (await once(r.child, "exit")) as [number | null];
  assert.equal(code, 1);
  const lines = r.err().trim().split("\n");
  assert.equal(lines.length, 1, r.err());
  assert.match(lines[0]!, /^flashnode: .* holds a chain from a different genesis \(chain id 31337/);
});
