// Chaos for a fork (issue 30): `flashnode dev --fork-url` of a real anvil, both processes as users
// run them, while transactions flow to the fork. Every block's seal reads the upstream (the
// system contracts' ring-buffer slots it overwrites), so the fork needs its upstream all along.
// The upstream is paused (SIGSTOP) for 20 s and resumed, then killed (SIGKILL) and restarted,
// twice. anvil keeps its chain in a state file it writes every second (--state, --state-interval),
// so the restarted upstream is the same chain, as a real node restarted on its database is. Each
// time: /readyz says the fork is not ready while its upstream is away, the fork's blocks resume
// within 2 s of the upstream's return, /readyz is ready again after; at the end nothing is lost
// or doubled: every transaction the fork answered with a hash is in exactly one block, the
// sender's nonces are contiguous, and each block's receipts are its transactions' receipts.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, type TestContext, test } from "node:test";
import { freePort } from "../../bench/compare/peers.ts";
import { call, tempDatadir } from "../utils/fixtures.ts";
import { dedicated, head, KEY, readyz, TxFlow, until } from "../utils/followProcesses.ts";
import { type RpcProcess, startAnvilProcess, startCli, stopChild } from "../utils/processes.ts";

/** How long the upstream is paused: the 20 s (the one fixed wait: it is the fault). */
const PAUSE_MS = 20_000;
/** The fork's blocks resume this soon after its upstream answers again. */
const RESUME_MS = 2_000;

const anvilPort = await freePort();
const statePath = join(tempDatadir("chaos-upstream"), "state.json");
let upstream: RpcProcess;
let fork: RpcProcess;
let flow: TxFlow;
/** The fork block F: blocks above it are the fork's own. */
let base: number;

/** anvil on its port, its chain kept in (and restored from) the state file. */
function startUpstream(): Promise<RpcProcess> {
  return startAnvilProcess(["--silent", "--state", statePath, "--state-interval", "1"], {
    port: anvilPort,
  });
}

before(async () => {
  upstream = await startUpstream();
  await upstream.rpc("evm_mine", []);
  await until(
    "the upstream's state file",
    async () => existsSync(statePath),
    (written) => written,
  );
  fork = await startCli([
    "dev",
    "--fork-url",
    upstream.url,
    "--datadir",
    tempDatadir("chaos-fork"),
    "--block-time",
    "2s",
    "--api-key",
    KEY,
  ]);
  base = Number(/Forked from chain \d+ at block (\d+)/.exec(fork.output())?.[1]);
  assert.ok(base >= 1, fork.output());
  flow = new TxFlow(() => fork.url, 31337);
  await until(
    "transactions in the fork's blocks",
    async () => Number(await call(fork.url, "eth_getTransactionCount", [flow.sender, "latest"])),
    (n) => n > 0,
  );
  await until(
    "the fork ready",
    () => readyz(fork),
    (r) => r.ready,
  );
});

after(async () => {
  await flow?.stop();
  upstream?.child.kill("SIGCONT");
  await stopChild(fork?.child);
  await stopChild(upstream?.child);
});

/** Transactions flowing (five more accepted since the last fault); the fork's head. */
async function flowing(): Promise<number> {
  const sent = flow.accepted;
  await until(
    "transactions flowing",
    async () => flow.accepted,
    (n) => n >= sent + 5,
  );
  return head(fork.url);
}

/** /readyz says not ready while the upstream is away; its reasons say why. */
async function notReadyWhileAway(why: string): Promise<void> {
  const r = await until(
    `/readyz not ready (${why})`,
    () => readyz(fork),
    (r) => !r.ready,
  );
  assert.match(r.reasons.join("; "), /upstream/, JSON.stringify(r));
}

/** The upstream answers again from `back` on: a new block within RESUME_MS, then ready. */
async function blocksResume(t: TestContext, stuckAt: number, back: number): Promise<void> {
  const resumed = await until(
    "the fork's next block",
    () => head(fork.url),
    (n) => n > stuckAt,
  );
  const lag = Date.now() - back;
  t.diagnostic(`block ${resumed} ${lag} ms after the upstream answered again`);
  assert.ok(
    lag <= RESUME_MS,
    `block ${resumed} ${lag} ms after the upstream answered again (at most ${RESUME_MS}); the fork's log:\n${fork.output().split("\n").slice(-30).join("\n")}`,
  );
  await until(
    "the fork ready again",
    () => readyz(fork),
    (r) => r.ready,
    10_000,
  );
}

test("the upstream paused for 20 s, then resumed", async (t) => {
  await flowing();
  upstream.child.kill("SIGSTOP");
  const resumeAt = Date.now() + PAUSE_MS;
  await notReadyWhileAway("upstream paused");
  await new Promise((r) => setTimeout(r, Math.max(0, resumeAt - Date.now())));
  assert.equal((await readyz(fork)).ready, false, "still not ready at the end of the pause");
  // Transactions were pre-confirmed meanwhile: the block grew, unsealed.
  const stuckAt = await head(fork.url);
  upstream.child.kill("SIGCONT");
  await blocksResume(t, stuckAt, Date.now());
});

for (const round of [1, 2])
  test(`the upstream killed and restarted (${round} of 2)`, async (t) => {
    await flowing();
    await stopChild(upstream.child, "SIGKILL");
    await notReadyWhileAway(`upstream killed, round ${round}`);
    const stuckAt = await head(fork.url);
    upstream = await startUpstream();
    await blocksResume(t, stuckAt, Date.now());
  });

type Tx = { hash: string; from: string; nonce: string };
type Block = { number: string; transactions: Tx[] };

test("nothing lost or doubled: every transaction in one block, nonces contiguous, receipts agree", async () => {
  await flow.stop();
  const count = (tag: string) => call(fork.url, "eth_getTransactionCount", [flow.sender, tag]);
  const held = Number(await count("pending"));
  assert.ok(held >= flow.accepted, `${held} held, ${flow.accepted} accepted`);
  await until(
    "the flow's transactions sealed",
    async () => Number(await count("latest")),
    (n) => n === held,
  );
  const tip = await head(fork.url);
  const url = dedicated(fork);
  const blockOf = new Map<string, number>();
  const nonces: number[] = [];
  for (let n = base + 1; n <= tip; n++) {
    const id = `0x${n.toString(16)}`;
    const block = (await call(url, "eth_getBlockByNumber", [id, true])) as Block;
    const receipts = (await call(url, "eth_getBlockReceipts", [id])) as {
      transactionHash: string;
    }[];
    assert.deepEqual(
      receipts.map((r) => r.transactionHash),
      block.transactions.map((tx) => tx.hash),
      `block ${n}'s receipts are its transactions'`,
    );
    for (const [i, tx] of block.transactions.entries()) {
      assert.ok(!blockOf.has(tx.hash), `${tx.hash} in blocks ${blockOf.get(tx.hash)} and ${n}`);
      blockOf.set(tx.hash, n);
      assert.deepEqual(
        await call(url, "eth_getTransactionReceipt", [tx.hash]),
        receipts[i],
        `${tx.hash}'s receipt`,
      );
      if (tx.from.toLowerCase() === flow.sender.toLowerCase()) nonces.push(Number(tx.nonce));
    }
  }
  // Every transaction the fork answered with a hash (nonces below what it holds) is in a block.
  for (const hash of flow.hashes.slice(0, held))
    assert.ok(blockOf.has(hash), `${hash} in a block above F`);
  assert.deepEqual(
    nonces,
    Array.from({ length: held }, (_, i) => i),
    "the sender's nonces, in chain order",
  );
});
