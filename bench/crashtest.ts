// `npm run crashtest`: the full crash run — at least 20 SIGKILLs of `flashnode dev` at random
// moments while a steady client sequences transactions (see test/utils/crashRun.ts).
import { parseArgs } from "node:util";
import { runCrashTest } from "../test/utils/crashRun.ts";

const { values } = parseArgs({ options: { kills: { type: "string", default: "20" } } });
const started = performance.now();
const report = await runCrashTest({
  kills: Number(values.kills),
  // With 1 s blocks: early in a round to a few seconds into it.
  killAfter: { seals: [0, 3], sends: [2, 20] },
  log: (l) => console.log(l),
});
console.log(
  `kills ${report.kills}, restarts ${report.restarts}, sealed-block checks ${report.blocksChecked}, ` +
    `pre-confirmation checks ${report.preconfirmationsChecked}, lost ${report.lost}, problems ${report.problems.length} ` +
    `(${((performance.now() - started) / 1000).toFixed(0)} s)`,
);
process.exit(report.problems.length === 0 && report.lost === 0 ? 0 : 1);
