// The short crash run (npm run crashtest does ≥ 20 kills): SIGKILL during sequencing, restart,
// nothing sealed changes and no pre-confirmation is lost.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runCrashTest } from "../utils/crashRun.ts";

test("SIGKILL while sequencing: sealed blocks unchanged, pre-confirmations kept", async () => {
  const report = await runCrashTest({ kills: 3, killAfter: { seals: [1, 2], sends: [5, 10] } });
  assert.deepEqual(report.problems, []);
  assert.equal(report.lost, 0);
  assert.equal(report.kills, 3);
  assert.ok(
    report.preconfirmationsChecked > 20,
    `${report.preconfirmationsChecked} pre-confirmation checks`,
  );
  assert.ok(report.blocksChecked > 3, `${report.blocksChecked} block checks`);
  console.log(`crash: ${JSON.stringify(report)}`);
});
