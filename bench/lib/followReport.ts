// What `npm run bench:follow` prints for a phase: the follower's flashblock lag behind the
// sequencer's stream, its own metrics beside it, its import rate and head lag, the sequencer's
// gas rate, and the upstream requests per block.
import type { PhaseResult } from "./followPhase.ts";
import { bucketQuantile, grew, histogramDelta, shareWithin } from "./promScrape.ts";

const f = (n: number) => n.toFixed(n < 10 ? 2 : 1);

/** Nearest-rank percentile of ascending `sorted`. */
function pct(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

function spread(values: readonly number[]): string {
  if (values.length === 0) return "none";
  const s = [...values].sort((a, b) => a - b);
  return `n ${s.length}, p50 ${f(pct(s, 0.5))}, p90 ${f(pct(s, 0.9))}, p99 ${f(pct(s, 0.99))}, max ${f(s.at(-1)!)} ms`;
}

/** How many flashblocks had how many transactions, in ranges. */
function sizes(counts: readonly number[]): string {
  const ranges: [string, (n: number) => boolean][] = [
    ["0", (n) => n === 0],
    ["1-39", (n) => n >= 1 && n < 40],
    ["40-49", (n) => n >= 40 && n < 50],
    ["50", (n) => n === 50],
    ["51-60", (n) => n > 50 && n <= 60],
    [">60", (n) => n > 60],
  ];
  return ranges
    .map(([label, test]) => `${label}: ${counts.filter(test).length}`)
    .filter((s) => !s.endsWith(": 0"))
    .join(", ");
}

const event = (r: PhaseResult, name: string) =>
  grew(r.before, r.after, `flashnode_follow_events_total{event="${name}"}`);

export function printPhase(label: string, r: PhaseResult, minTransactions: number): void {
  const say = (s: string) => console.log(`   ${s}`);
  console.log(
    `\n${label}: ${f(r.seconds)} s window, ${r.sent} transactions sent (${f(r.sent / r.seconds)}/s, ${r.sendErrors} refused); steal ${r.stealMs} ms`,
  );
  // 1. The follower's flashblock, at the bench, after the sequencer's.
  const all = r.flashblocks;
  say(
    `flashblocks from the sequencer in the window: ${all.length}; by transactions: ${sizes(all.map((x) => x.transactions))}`,
  );
  const big = all.filter((x) => x.transactions >= minTransactions);
  const missing = big.filter((x) => x.lagMs === undefined).length;
  const lag = (xs: typeof all) => xs.flatMap((x) => (x.lagMs === undefined ? [] : [x.lagMs]));
  say(
    `≥ ${minTransactions} transactions, follower's /flashblocks − sequencer's (ms): ${spread(lag(big))}${missing > 0 ? `; ${missing} never shown by the follower` : ""}`,
  );
  say(`   of them index 0: ${spread(lag(big.filter((x) => x.index === 0)))}`);
  say(`   of them index ≥ 1: ${spread(lag(big.filter((x) => x.index > 0)))}`);
  const perTx = all
    .filter((x) => x.transactions >= 10 && x.lagMs !== undefined)
    .map((x) => x.lagMs! / x.transactions)
    .sort((a, b) => a - b);
  if (perTx.length > 0)
    say(
      `lag per transaction, flashblocks of ≥ 10: median ${f(pct(perTx, 0.5))} ms (${perTx.length} flashblocks)`,
    );
  const some = all.filter((x) => x.transactions > 0);
  const unseen = some.filter((x) => x.lagMs === undefined).length;
  say(
    `every flashblock with a transaction: ${spread(lag(some))}${unseen > 0 ? `; ${unseen} never shown by the follower` : ""}`,
  );
  const visible = histogramDelta(r.before, r.after, "flashnode_flashblock_visible_seconds");
  say(
    `follower's own flashnode_flashblock_visible_seconds (arrival → applied by its reader): ${visible.count} flashblocks, mean ${f((visible.sumSeconds / Math.max(1, visible.count)) * 1000)} ms, p50 ${bucketQuantile(visible, 0.5)}, p99 ${bucketQuantile(visible, 0.99)}, within 25 ms ${f(shareWithin(visible, 0.025) * 100)}%, within 100 ms ${f(shareWithin(visible, 0.1) * 100)}%`,
  );
  const replay = histogramDelta(r.before, r.after, "flashnode_flashblock_build_seconds");
  say(
    `follower's flashnode_flashblock_build_seconds (re-executing one flashblock): mean ${f((replay.sumSeconds / Math.max(1, replay.count)) * 1000)} ms, p50 ${bucketQuantile(replay, 0.5)}, p99 ${bucketQuantile(replay, 0.99)}; total ${f(replay.sumSeconds)} s in the window`,
  );
  // 2. Keeping up.
  const blocks = event(r, "importedBlocks");
  const gas = event(r, "importedGas");
  const ms = event(r, "importMilliseconds");
  say(
    `follower imported ${blocks} blocks (${event(r, "importedFromReplay")} sealed from the replay), ${f(gas / 1e6)} Mgas: ${f(gas / r.seconds / 1e6)} Mgas/s followed; import work ${f(ms)} ms = ${f(ms / Math.max(1, blocks))} ms a block, ${f(gas / Math.max(1, ms) / 1000)} Mgas/s of import work`,
  );
  // Blocks sealed from the replay were executed flashblock by flashblock, not in the import:
  // the follower thread's execution work is both, and its CPU is what bounds it.
  const workSeconds = ms / 1000 + replay.sumSeconds;
  const threadCpu = r.followerThreads.busiest * r.seconds;
  say(
    `follower thread: replay ${f(replay.sumSeconds)} s + import ${f(ms / 1000)} s = ${f(gas / Math.max(1e-9, workSeconds) / 1e6)} Mgas per second of that work; ${f(threadCpu)} s of CPU = ${f(gas / Math.max(1e-9, threadCpu) / 1e6)} Mgas per CPU-second`,
  );
  const others = [...r.after.keys()]
    .filter((k) => k.startsWith("flashnode_follow_events_total{"))
    .map(
      (k) => [k.slice(k.indexOf('"') + 1, k.lastIndexOf('"')), grew(r.before, r.after, k)] as const,
    )
    .filter(([name, n]) => n > 0 && !name.startsWith("import"))
    .map(([name, n]) => `${name} ${n}`);
  say(`follower events in the window: ${others.join(", ")}`);
  const seqGas = r.sequencerBlocks.reduce((a, b) => a + b.gas, 0);
  const seqTxs = r.sequencerBlocks.reduce((a, b) => a + b.transactions, 0);
  say(
    `sequencer sealed ${r.sequencerBlocks.length} blocks (${r.heads.sequencer.join(" → ")}), ${seqTxs} transactions, ${f(seqGas / 1e6)} Mgas: ${f(seqGas / Math.max(1, r.sequencerBlocks.length) / 1e6)} Mgas a block, ${f(seqGas / r.seconds / 1e6)} Mgas/s`,
  );
  const lagged = (n: number) => r.lags.filter((l) => l <= n).length / Math.max(1, r.lags.length);
  say(
    `heads every 100 ms (${r.lags.length} samples): follower at the sequencer's ${f(lagged(0) * 100)}%, within 1 block ${f(lagged(1) * 100)}%, max ${Math.max(0, ...r.lags)} behind; follower ${r.heads.follower.join(" → ")}`,
  );
  say(
    `CPU: follower ${f(r.cpu.follower * 100)}% of a core (main thread ${f(r.followerThreads.main * 100)}%, follower thread ${f(r.followerThreads.busiest * 100)}%: ${f((r.followerThreads.busiest * r.seconds * 1000) / Math.max(1, seqTxs))} ms per transaction sealed), sequencer (dev node) ${f(r.cpu.sequencer * 100)}%; waiting for a CPU (run queue, all threads): follower ${f(r.waiting.follower)} ms/s, sequencer ${f(r.waiting.sequencer)} ms/s`,
  );
  // 3. Upstream requests per block.
  const per = Math.max(1, blocks);
  const methods = [...r.upstream.byMethod]
    .sort((a, b) => b[1] - a[1])
    .map(([m, n]) => `${m} ${f(n / per)}`);
  say(
    `upstream (through the proxy): ${r.upstream.requests} requests, ${r.upstream.calls} calls over ${blocks} blocks: ${f(r.upstream.requests / per)} requests a block; calls a block: ${methods.join(", ")}`,
  );
}
