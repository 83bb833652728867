// What `npm run bench:follow -- --upstream-latency …` prints for each side (one follower from
// cold), and the comparison of the sides at the end.
import type { FlashblockCost, WanSide } from "./followWan.ts";

const f = (n: number) => n.toFixed(n < 10 ? 1 : 0);

function pct(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

export function spread(values: readonly number[]): string {
  if (values.length === 0) return "none";
  const s = [...values].sort((a, b) => a - b);
  return `n ${s.length}, p50 ${f(pct(s, 0.5))}, p90 ${f(pct(s, 0.9))}, p99 ${f(pct(s, 0.99))}, max ${f(s.at(-1)!)}`;
}

const lags = (xs: readonly FlashblockCost[]) =>
  xs.flatMap((x) => (x.lagMs === undefined ? [] : [x.lagMs]));
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const ms = (v: number | undefined) => (v === undefined ? "never" : `${f(v)} ms`);

/** The flashblocks that carried transactions (an idle flashblock reads nothing). */
const busy = (xs: readonly FlashblockCost[]) => xs.filter((x) => x.transactions > 0);

export function printWanSide(side: WanSide, latencyMs: number, coldShown: number): void {
  const say = (s: string) => console.log(`   ${s}`);
  console.log(`\n${side.label}: upstream ${latencyMs} ms away (every request and frame)`);
  say(
    `${side.sent} transactions sent (${side.refused} refused); ${side.handedOn} flashblocks handed to the follower, ${side.shown} shown by it; the sequencer's stream in the steady window: ${side.sequencerFlashblocks} flashblocks, ${side.sequencerTransactions} transactions`,
  );
  say(
    `cold start: answering ${ms(side.readyMs)} after spawn; first flashblock shown ${ms(side.firstShownMs)}; at the head (showing the newest flashblock it was handed) ${ms(side.atHeadMs)}`,
  );
  const cold = busy(side.cold).filter((x) => x.lagMs !== undefined);
  say(`cold: the first ${Math.min(coldShown, cold.length)} flashblocks with transactions shown:`);
  for (const x of cold.slice(0, coldShown))
    say(
      `  ${x.key}: ${x.transactions} txs, shown ${ms(x.lagMs)} after arrival; state reads ${x.stateRequests} requests in ${x.stateTrips} round trips; all requests ${x.requests} in ${x.trips} round trips`,
    );
  say(`cold window, flashblocks with transactions: lag (ms) ${spread(lags(cold))}`);
  say(
    `   state round trips per flashblock: ${spread(cold.map((x) => x.stateTrips))}; requests: ${spread(cold.map((x) => x.stateRequests))}`,
  );
  const steady = busy(side.steady);
  const unseen = steady.filter((x) => x.lagMs === undefined).length;
  say(
    `steady, ${f(side.steadySeconds)} s: flashblocks with transactions ${steady.length} (mean ${f(mean(steady.map((x) => x.transactions)))} txs)${unseen > 0 ? `, ${unseen} never shown` : ""}`,
  );
  say(`   flashblock → pending (ms): ${spread(lags(steady))}`);
  say(`      index 0: ${spread(lags(steady.filter((x) => x.index === 0)))}`);
  say(`      index ≥ 1: ${spread(lags(steady.filter((x) => x.index > 0)))}`);
  const within = (limit: number) =>
    (lags(steady).filter((l) => l <= limit).length / Math.max(1, steady.length)) * 100;
  say(`      within 50 ms: ${f(within(50))}%; within 100 ms: ${f(within(100))}%`);
  say(
    `   state round trips per flashblock: mean ${mean(steady.map((x) => x.stateTrips)).toFixed(2)}, max ${Math.max(0, ...steady.map((x) => x.stateTrips))}; state requests per flashblock: mean ${mean(steady.map((x) => x.stateRequests)).toFixed(2)}`,
  );
  const all = side.steady.length;
  const methods = [...side.steadyCalls]
    .sort((a, b) => b[1] - a[1])
    .map(([m, n]) => `${m} ${n}`)
    .join(", ");
  say(
    `   upstream: ${side.steadyRequests} requests over ${all} flashblocks and ${side.steadyBlocks} blocks (${(side.steadyRequests / Math.max(1, all)).toFixed(2)} a flashblock); calls: ${methods}`,
  );
}

/** One line per side: the figures the goals name. */
export function printWanSummary(sides: readonly WanSide[]): void {
  console.log(
    "\nsummary: side | at head | cold lag p50/p99 | cold state round trips max (p50) | steady lag p50/p99 (index ≥ 1 p99) | steady state round trips max",
  );
  for (const s of sides) {
    const cold = busy(s.cold).filter((x) => x.lagMs !== undefined);
    const steady = busy(s.steady);
    const sorted = (xs: readonly number[]) => [...xs].sort((a, b) => a - b);
    const cl = sorted(lags(cold));
    const sl = sorted(lags(steady));
    const s1 = sorted(lags(steady.filter((x) => x.index > 0)));
    const trips = sorted(cold.map((x) => x.stateTrips));
    const p = (xs: number[], q: number) => (xs.length === 0 ? "-" : f(pct(xs, q)));
    console.log(
      `   ${s.label} | ${ms(s.atHeadMs)} | ${p(cl, 0.5)}/${p(cl, 0.99)} ms | ${trips.at(-1) ?? "-"} (${p(trips, 0.5)}) | ${p(sl, 0.5)}/${p(sl, 0.99)} ms (${p(s1, 0.99)}) | ${Math.max(0, ...steady.map((x) => x.stateTrips))}`,
    );
  }
}
