// `flashnode dev --fork-url` as a user runs it (the CLI, its default reader processes): an
// upstream that cannot serve the fork is named in one line and nothing is left on disk; a fork
// serves, takes transactions and anvil_reset across its readers; a restart with the upstream
// gone starts offline from the datadir (--fork-chain-id) and answers what it fetched before.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { freePort } from "../../bench/compare/peers.ts";
import {
  type ProxiedUpstream,
  RECEIVER,
  startProxiedUpstream,
  word,
} from "../utils/anvilUpstream.ts";
import { devSigner, pollUntil, signAtPendingNonce } from "../utils/devChain.ts";
import { BIN, call, tempDatadir } from "../utils/fixtures.ts";
import { captureOutput } from "../utils/processes.ts";

let upstream: ProxiedUpstream;
const root = tempDatadir("fork-cli");

before(async () => {
  upstream = await startProxiedUpstream();
});

after(async () => {
  await upstream?.stop();
});

type Run = { code: number | null; stdout: string; stderr: string };

/** Runs the CLI to its end (the proxy answers from this process meanwhile). */
function runToEnd(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

function refusedAtStart(r: Run, pattern: RegExp, datadir: string): void {
  assert.equal(r.code, 1, r.stderr);
  const lines = r.stderr.split("\n").filter((l) => l !== "");
  assert.equal(lines.length, 1, `one line on stderr, got:\n${r.stderr}`);
  assert.match(lines[0]!, /^flashnode: /);
  assert.match(lines[0]!, pattern);
  assert.ok(!existsSync(datadir), "nothing is left on disk");
}

const forkArgs = (datadir: string, ...extra: string[]) => [
  "dev",
  "--fork-url",
  upstream.proxy.url,
  "--datadir",
  datadir,
  "--port",
  "0",
  "--log-level",
  "warn",
  ...extra,
];

test("an upstream without state at the fork block is named at start", async () => {
  upstream.proxy.intercept = (c) =>
    c.method === "eth_getBalance"
      ? { error: { code: -32000, message: "missing trie node 5f1d… (path )" } }
      : undefined;
  try {
    const datadir = join(root, "not-archive");
    const r = await runToEnd(forkArgs(datadir, "--fork-block-number", "1"));
    refusedAtStart(r, /has no state for block 1 .*missing trie node.*archive node/, datadir);
  } finally {
    upstream.proxy.intercept = undefined;
  }
});

test("a provider's error page and an unreachable upstream are one line each", async () => {
  upstream.proxy.fault = () => ({
    status: 502,
    body: "<html><head><title>502 Bad Gateway</title></head><body><h1>oops</h1></body></html>",
  });
  try {
    const datadir = join(root, "bad-gateway");
    const r = await runToEnd(forkArgs(datadir, "--fork-retries", "0"));
    refusedAtStart(r, /502 Bad Gateway/, datadir);
  } finally {
    upstream.proxy.fault = undefined;
  }
  const closed = `http://127.0.0.1:${await freePort()}/`;
  const datadir = join(root, "unreachable");
  const args = forkArgs(datadir, "--fork-retries", "0");
  args[2] = closed;
  refusedAtStart(await runToEnd(args), /127\.0\.0\.1/, datadir);
});

test("a fork serves, takes transactions and resets across its readers; a restart starts offline", async () => {
  const datadir = join(root, "serving");
  const F = upstream.chain.fork.number;
  const start = (...extra: string[]) => {
    const child: ChildProcess = spawn(
      process.execPath,
      [BIN, ...forkArgs(datadir, "--rpc-workers", "2", "--block-time", "60s", ...extra)],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const p = captureOutput(child);
    const url = pollUntil(
      async () =>
        /JSON-RPC \(public\):\s+(\S+)/.exec(p.all())?.[1] ??
        (child.exitCode === null ? "" : "exited"),
      (u) => u !== "",
      60_000,
    );
    return { child, url, output: p.all };
  };
  const stop = async (c: ChildProcess) => {
    const exited = new Promise((r) => c.once("exit", r));
    c.kill("SIGINT");
    await exited;
  };
  const first = start("--fork-block-number", String(F));
  const url = await first.url;
  assert.notEqual(url, "exited", first.output());
  assert.match(
    first.output(),
    new RegExp(`Forked from chain 31337 at block ${F} \\(upstream 127\\.0\\.0\\.1:\\d+\\)`),
  );
  // Both readers answer the upstream's state at F.
  for (let i = 0; i < 4; i++)
    assert.equal(
      BigInt(
        String(await call(url, "eth_getStorageAt", [upstream.chain.contract, word(3n), "latest"])),
      ),
      300n,
    );
  const account = devSigner();
  const raw = await signAtPendingNonce(url, account, {
    chainId: 31337,
    gas: 21_000n,
    to: RECEIVER,
    value: 7n,
  });
  const receipt = (await call(url, "eth_sendRawTransactionSync", [raw])) as { status: string };
  assert.equal(receipt.status, "0x1");
  const atF = BigInt(String(await call(url, "eth_getBalance", [RECEIVER, `0x${F.toString(16)}`])));
  for (let i = 0; i < 4; i++)
    assert.equal(
      BigInt(String(await call(url, "eth_getBalance", [RECEIVER, "pending"]))),
      atF + 7n,
    );
  // anvil_reset to the block before F: every reader shows it once the answer comes.
  await call(url, "anvil_reset", [{ forking: { blockNumber: Number(F - 1n) } }]);
  for (let i = 0; i < 4; i++)
    assert.equal(BigInt(String(await call(url, "eth_blockNumber"))), F - 1n);
  await call(url, "anvil_reset", [{ forking: { blockNumber: Number(F) } }]);
  await stop(first.child);
  // Offline: every upstream request fails; the datadir knows F and what was read.
  upstream.proxy.fault = () => "hang";
  try {
    const second = start("--fork-block-number", String(F), "--fork-chain-id", "31337");
    const again = await second.url;
    assert.notEqual(again, "exited", second.output());
    for (let i = 0; i < 4; i++)
      assert.equal(
        BigInt(
          String(
            await call(again, "eth_getStorageAt", [upstream.chain.contract, word(3n), "latest"]),
          ),
        ),
        300n,
      );
    await stop(second.child);
  } finally {
    upstream.proxy.fault = undefined;
  }
});
