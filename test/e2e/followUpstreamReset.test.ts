// A follower's upstream replaced under it (issue 30 item 4): a `dev` sequencer restarted with
// --fresh under a running `follow`. Once the new chain passed the old height, the follower
// unwound to its base block and then logged "upstream reorg: unwound to the common ancestor"
// (from its base to its base, 0 removed) ~14 times a second for ever, /readyz ready, its head a
// block the upstream no longer had. The upstream has forgotten the follower's own base block:
// following stops with that reason, on /readyz and in one log line, the blocks followed stay
// served, and `follow --fresh` starts over on the new chain. A reorg that goes down to the base
// block, and no further, is unwound to it and the new branch followed.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { freePort } from "../../bench/compare/peers.ts";
import { call, tempDatadir } from "../utils/fixtures.ts";
import {
  dedicated,
  head,
  logLines,
  readyz,
  startFollower,
  startSequencer,
  until,
} from "../utils/followProcesses.ts";
import { type RpcProcess, stopChild } from "../utils/processes.ts";

const FORGOTTEN = /no longer has this node's base block/;
const started: RpcProcess[] = [];

after(async () => {
  for (const p of started.reverse()) await stopChild(p.child);
});

async function run(p: Promise<RpcProcess>): Promise<RpcProcess> {
  const node = await p;
  started.push(node);
  return node;
}

function baseOf(follower: RpcProcess): number {
  const m = /Following chain \d+ from block (\d+)/.exec(follower.output());
  assert.ok(m !== null, follower.output());
  return Number(m[1]);
}

async function hashAt(url: string, n: number): Promise<string> {
  return (
    (await call(url, "eth_getBlockByNumber", [`0x${n.toString(16)}`, false])) as {
      hash: string;
    }
  ).hash;
}

test("a sequencer restarted with --fresh under a follower: following stops, said once, and follow --fresh starts over", async () => {
  const port = await freePort();
  const sequencerDir = tempDatadir("reset-sequencer");
  const followerDir = tempDatadir("reset-follower");
  let sequencer = await run(startSequencer({ datadir: sequencerDir, port }));
  await until(
    "the sequencer's third block",
    () => head(sequencer.url),
    (n) => n >= 3,
  );
  const follower = await run(startFollower({ datadir: followerDir, upstreamPort: port }));
  const base = baseOf(follower);
  await until(
    "the follower past its base",
    () => head(follower.url),
    (n) => n >= base + 3,
  );
  await stopChild(sequencer.child, "SIGINT");
  const oldHead = await head(follower.url);
  const oldHash = await hashAt(follower.url, oldHead);

  sequencer = await run(startSequencer({ datadir: sequencerDir, port, fresh: true }));
  // The case: the new chain passes the follower's height, its blocks built on others.
  await until(
    "the new chain past the old",
    () => head(sequencer.url),
    (n) => n > oldHead + 1,
  );
  const stopped = await until(
    "/readyz to say following stopped",
    () => readyz(follower),
    (r) => r.reasons.some((reason) => FORGOTTEN.test(reason)),
  );
  assert.equal(stopped.ready, false);
  const reason = stopped.reasons.find((r) => FORGOTTEN.test(r))!;
  assert.match(reason, new RegExp(`base block ${base} \\(0x[0-9a-f]{64}; it has 0x[0-9a-f]{64}`));
  assert.match(reason, /start again with --fresh/);
  // Five more blocks of the new chain: time for a loop to show.
  const then = await head(sequencer.url);
  await until(
    "five more new blocks",
    () => head(sequencer.url),
    (n) => n >= then + 5,
  );
  assert.equal(logLines(follower, FORGOTTEN).length, 1, "said in one log line");
  assert.deepEqual(logLines(follower, /unwound/), [], "nothing unwound");
  assert.equal((await readyz(follower)).ready, false);
  // What it followed stays served.
  assert.equal(await head(follower.url), oldHead);
  assert.equal(await hashAt(follower.url, oldHead), oldHash);

  // Starting over, as the reason says.
  assert.equal(await follower.interrupt(), 0);
  const again = await run(startFollower({ datadir: followerDir, upstreamPort: port, fresh: true }));
  assert.ok(baseOf(again) >= oldHead + 1, again.output());
  const tip = await head(sequencer.url);
  await until(
    "the new follower at the new chain's head",
    () => head(again.url),
    (n) => n >= tip,
  );
  assert.equal(await hashAt(dedicated(again), tip), await hashAt(dedicated(sequencer), tip));
  await until(
    "the new follower ready",
    () => readyz(again),
    (r) => r.ready,
  );
});

test("a reorg down to the follower's base block, no further, is unwound to it and the new branch followed", async () => {
  const port = await freePort();
  // Blocks only when asked (evm_mine): the test builds both branches.
  const sequencer = await run(
    startSequencer({ datadir: tempDatadir("rebase-sequencer"), port, blockTime: "1h" }),
  );
  for (let i = 0; i < 3; i++) await sequencer.rpc("evm_mine");
  const snapshot = await sequencer.rpc<string>("evm_snapshot");
  const follower = await run(
    startFollower({ datadir: tempDatadir("rebase-follower"), upstreamPort: port }),
  );
  const base = baseOf(follower);
  assert.equal(base, await head(sequencer.url));
  for (let i = 0; i < 3; i++) await sequencer.rpc("evm_mine");
  await until(
    "the follower on the first branch",
    () => head(follower.url),
    (n) => n === base + 3,
  );

  // The second branch starts right on the base block (later timestamps: other blocks), and
  // grows past the first.
  await sequencer.rpc("evm_revert", [snapshot]);
  assert.equal(await head(sequencer.url), base);
  await sequencer.rpc("evm_increaseTime", [1_000]);
  for (let i = 0; i < 5; i++) await sequencer.rpc("evm_mine");
  const tip = base + 5;
  await until(
    "the follower on the second branch",
    async () => [await head(follower.url), await hashAt(follower.url, tip).catch(() => "")],
    ([n]) => n === tip,
  );
  for (let n = base + 1; n <= tip; n++)
    assert.equal(await hashAt(follower.url, n), await hashAt(sequencer.url, n), `block ${n}`);
  const unwound = logLines(follower, /unwound to the common ancestor/).map(
    (l) => JSON.parse(l) as { to: number },
  );
  assert.ok(unwound.length >= 1, "the reorg was unwound");
  assert.ok(
    unwound.every((u) => u.to === base),
    `unwound to the base: ${JSON.stringify(unwound)}`,
  );
  assert.deepEqual(logLines(follower, FORGOTTEN), []);
  await until(
    "the follower ready",
    () => readyz(follower),
    (r) => r.ready,
  );
});
