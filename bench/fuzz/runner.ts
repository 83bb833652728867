// The fuzz loop: workers generate cases by index, send them, record the outcomes, and stop on
// time, on count, or as soon as the node dies.
import { generateCase } from "./cases/generate.ts";
import type { CaseEnv, FuzzCase } from "./cases/types.ts";
import type { Outcome } from "./checks.ts";
import type { NodeProcess } from "./nodeProcess.ts";
import { type FuzzOptions, isExcluded } from "./options.ts";
import type { Crash } from "./report.ts";
import { runCase } from "./runCase.ts";
import type { Stats } from "./stats.ts";
import { rpc, type Target } from "./target.ts";
import { sleep } from "./util.ts";

export type FuzzRun = {
  readonly opts: FuzzOptions;
  readonly target: Target;
  readonly env: CaseEnv;
  readonly node: NodeProcess;
  readonly stats: Stats;
};

export type FuzzResult = {
  readonly crash: Crash | undefined;
  /** Cases generated but not sent (--exclude). */
  readonly skipped: number;
  readonly durationMs: number;
  readonly rss: { readonly start: number | undefined; readonly max: number };
  readonly rssEnd: number | undefined;
};

const failedConnection = (o: Outcome) =>
  o.problems.some((p) => p.what === "connection" || p.what === "unanswered");

export async function runFuzz(run: FuzzRun): Promise<FuzzResult> {
  const { opts, target, env, node, stats } = run;
  const startedAt = Date.now();
  const rss = { start: node.rssMiB(), max: node.rssMiB() ?? 0 };
  let next = 0;
  let crash: Crash | undefined;
  let skipped = 0;
  const elapsed = () => Date.now() - startedAt;
  const shouldStop = () =>
    crash !== undefined ||
    elapsed() >= opts.maxSeconds * 1000 ||
    (elapsed() >= opts.seconds * 1000 && stats.sent >= opts.minRequests);

  const monitor = setInterval(() => {
    const r = node.rssMiB();
    if (r !== undefined) rss.max = Math.max(rss.max, r);
    const bad = stats.problemTotal();
    process.stderr.write(
      `  ${Math.round(elapsed() / 1000)} s: ${stats.sent} requests, ${Math.round(stats.sent / (elapsed() / 1000))}/s, ${bad} problems\n`,
    );
  }, 10_000);
  const watch = setInterval(() => {
    if (crash === undefined && node.child?.exited !== undefined && !node.stopping)
      crash = { what: node.child.exited, inflight: node.crashInflight ?? [] };
  }, 20);

  /** Runs one case and records it; false when the node is gone. */
  async function handle(c: FuzzCase): Promise<boolean> {
    node.inflight.set(c.index, c);
    const o = await runCase(target, c);
    if (failedConnection(o)) {
      // A cut connection may be the node dying: wait for the exit before blaming the case.
      const child = node.child;
      if (child !== undefined) {
        const until = Date.now() + 1_000;
        while (child.exited === undefined && Date.now() < until) await sleep(20);
      } else {
        // With --url there is no process to watch: a node that no longer answers is gone.
        const alive = await rpc(target, "/", "eth_chainId", []).then(
          () => true,
          () => false,
        );
        if (!alive) crash ??= { what: "target stopped answering", inflight: [c] };
      }
    }
    // Answers cut by the crash are not findings of their own; the crash report lists them.
    if (crash !== undefined || (node.child?.exited !== undefined && !node.stopping)) return false;
    node.inflight.delete(c.index);
    stats.record(c, o);
    return true;
  }

  // Sessions that mostly wait (dribbled bodies, stalls, WebSocket listening) run beside the
  // workers, at most 2 × concurrency at once, so they do not starve the quick requests.
  const background = new Set<Promise<boolean>>();
  async function worker(): Promise<void> {
    while (!shouldStop()) {
      const c = generateCase(opts.seed, next++, env);
      if (isExcluded(opts.exclude, c)) {
        skipped++;
        continue;
      }
      if (
        c.transport !== "http" &&
        c.kind !== "dropped" &&
        background.size < 2 * opts.concurrency
      ) {
        const p: Promise<boolean> = handle(c).finally(() => background.delete(p));
        background.add(p);
        continue;
      }
      if (!(await handle(c))) return;
    }
  }
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  await Promise.all(background);
  clearInterval(monitor);
  clearInterval(watch);
  if (crash === undefined && node.child?.exited !== undefined)
    crash = { what: node.child.exited, inflight: node.crashInflight ?? [] };
  const durationMs = elapsed();
  const rssEnd = node.rssMiB();
  return { crash, skipped, durationMs, rss, rssEnd };
}
