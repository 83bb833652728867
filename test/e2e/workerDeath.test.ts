// A node whose sequencer or follower thread dies stops as a whole, the one way every fatal fault
// stops it (issue 33 item 3): one line on stderr, exit code 1, its reader processes gone and its
// datadir's LOCK released. The thread was killed from outside (test/utils/workerKiller.mjs, on
// SIGUSR2) while the node served; its clients called process.exit(1) past the assembly before.
import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { freePort } from "../../bench/compare/peers.ts";
import { pollUntil } from "../utils/devChain.ts";
import { BIN, ROOT, tempDatadir } from "../utils/fixtures.ts";
import { head, KEY, startSequencer, until } from "../utils/followProcesses.ts";
import { captureOutput, type RpcProcess, stopChild } from "../utils/processes.ts";
import { within } from "../utils/within.ts";

const KILLER = join(ROOT, "test/utils/workerKiller.mjs");
const started: ChildProcess[] = [];
after(() => Promise.all(started.map((c) => stopChild(c, "SIGKILL"))));

type Node = { child: ChildProcess; url: string; stdout: () => string; stderr: () => string };

/** `flashnode <args>` with two reader processes and the worker killer preloaded. */
async function startNode(args: readonly string[], killWorker: string): Promise<Node> {
  const child = spawn(
    process.execPath,
    ["--import", KILLER, BIN, ...args, "--port", "0", "--rpc-workers", "2"],
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, FLASHNODE_TEST_KILL_WORKER: killWorker },
    },
  );
  started.push(child);
  const p = captureOutput(child);
  const m = await pollUntil(
    async () => {
      if (child.exitCode !== null)
        throw new Error(`exited at start:\n${p.stdout()}\n${p.stderr()}`);
      return /JSON-RPC \(public\): +(http:\/\/127\.0\.0\.1:\d+\/)/.exec(p.stdout());
    },
    (found) => found !== null,
    120_000,
    25,
  );
  return { child, url: m![1]!, stdout: p.stdout, stderr: p.stderr };
}

function childPids(pid: number): number[] {
  try {
    return execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
      .split("\n")
      .map((l) => Number(l.trim()))
      .filter((n) => n > 0);
  } catch {
    return []; // ps exits 1 when it lists nothing
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Kills the node's thread and checks how the node ended. */
async function killThreadAndCheck(node: Node, datadir: string, thread: RegExp): Promise<void> {
  const readers = childPids(node.child.pid!);
  assert.equal(readers.length, 2, "two reader processes before");
  assert.ok(existsSync(join(datadir, "LOCK")), "the datadir is locked while it runs");
  const exited = once(node.child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  node.child.kill("SIGUSR2");
  const [code] = await within(exited, "the node's exit after its thread died");
  assert.equal(code, 1, `exit code\n${node.stderr()}`);
  const lines = node.stderr().trim().split("\n");
  assert.equal(lines.length, 1, `one line on stderr, got:\n${node.stderr()}`);
  assert.match(lines[0]!, /^flashnode: /);
  assert.match(lines[0]!, thread);
  assert.doesNotMatch(node.stdout(), /"level":60/, "no fatal log line besides it");
  await pollUntil(
    async () => readers.filter(alive),
    (left) => left.length === 0,
    10_000,
  );
  assert.ok(!existsSync(join(datadir, "LOCK")), "the LOCK is released");
}

test("dev: the sequencer thread dies → one line, exit 1, readers gone, LOCK released", async () => {
  const datadir = tempDatadir("worker-death-dev");
  const node = await startNode(
    ["dev", "--datadir", datadir, "--block-time", "1s", "--api-key", KEY],
    "sequencer[-/]worker",
  );
  await until(
    "the first block",
    () => head(node.url),
    (n) => n >= 1,
  );
  await killThreadAndCheck(node, datadir, /the sequencer is gone/);
});

test("follow: the follower thread dies → one line, exit 1, readers gone, LOCK released", async () => {
  const port = await freePort();
  const sequencer: RpcProcess = await startSequencer({
    datadir: tempDatadir("worker-death-upstream"),
    port,
  });
  started.push(sequencer.child);
  const datadir = tempDatadir("worker-death-follow");
  const node = await startNode(
    [
      "follow",
      "--rpc",
      `http://127.0.0.1:${port}/`,
      "--flashblocks",
      `ws://127.0.0.1:${port}/flashblocks`,
      "--datadir",
      datadir,
      "--api-key",
      KEY,
    ],
    "follow[-/]worker",
  );
  const theirs = await head(sequencer.url);
  await until(
    "the follower at the sequencer's head",
    () => head(node.url),
    (n) => n >= theirs,
  );
  await killThreadAndCheck(node, datadir, /the follower is gone/);
});
