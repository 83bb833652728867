// Fuzz harness for the HTTP/WebSocket front of a running node: a seeded, weighted mix of broken
// and valid requests (cases in bench/fuzz/cases/), every answer checked, the node watched for
// crashes, then correctness probes. See docs/fuzz.md.
// Run: npm run fuzz [-- --seconds 60 --requests 10000 --concurrency 8 --seed N --url URL]
import { Agent } from "node:http";
import { generateCase } from "./cases/generate.ts";
import type { CaseEnv } from "./cases/types.ts";
import { confirmCrash } from "./crash.ts";
import { detectEnv } from "./env.ts";
import { NodeProcess } from "./nodeProcess.ts";
import { only127, parseOptions } from "./options.ts";
import { runProbes } from "./probes.ts";
import { describe, formatSummary, preview } from "./report.ts";
import { runCase } from "./runCase.ts";
import { runFuzz } from "./runner.ts";
import { Stats } from "./stats.ts";
import type { Target } from "./target.ts";

// Parsed before anything starts: a usage error exits (2) without spawning a node.
const opts = parseOptions();
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
const node = new NodeProcess(opts.nodeRateLimit);

async function replay(target: Target, env: CaseEnv, indices: number[]): Promise<number> {
  let bad = 0;
  for (const i of indices) {
    const c = generateCase(opts.seed, i, env);
    console.log(`\n${describe(c)}`);
    const o = await runCase(target, c);
    console.log(
      `  statuses: ${o.statuses.join(", ") || "none"}${o.connEvent === undefined ? "" : `; connection: ${o.connEvent}`}`,
    );
    for (const p of o.problems)
      console.log(
        `  PROBLEM ${p.what}: ${p.detail}${p.response === undefined ? "" : `\n    answer: ${preview(p.response, 2000)}`}`,
      );
    if (o.problems.length > 0) bad++;
    const child = node.child;
    if (child?.exited !== undefined) {
      console.log(`  NODE CRASHED: ${child.exited}\n${child.log.slice(-30).join("\n")}`);
      return 1;
    }
  }
  return bad > 0 ? 1 : 0;
}

async function main(): Promise<number> {
  let dedicatedUrl = opts.dedicatedUrl;
  let url: URL;
  if (opts.url !== undefined) url = only127(opts.url, "--url");
  else {
    const started = await node.start();
    url = only127(started.url, "the node URL");
    dedicatedUrl ??= started.dedicated;
  }
  const target: Target = { url, agent };
  const { env, notes } = await detectEnv(target, opts.seed, dedicatedUrl);
  const mode =
    node.child === undefined
      ? `target ${target.url.href}`
      : `flashnode dev child pid ${node.child.proc.pid} at ${target.url.href}`;
  console.log(`fuzz: seed ${opts.seed}, ${mode}, concurrency ${opts.concurrency}`);
  for (const n of notes) console.log(`  note: ${n}`);

  if (opts.replay !== undefined) {
    const indices = opts.replay.split(",").map((s) => Number(s.trim()));
    return replay(target, env, indices);
  }

  const stats = new Stats();
  const result = await runFuzz({ opts, target, env, node, stats });
  const { crash } = result;
  const probes = crash === undefined ? await runProbes(target, env, opts.seed, node) : [];
  // The crashed child's output, read before a confirmation run replaces the child.
  const crashLog = (node.child?.log ?? []).filter((l) => !/^\(\d+\) 0x/.test(l)).slice(-25);
  const confirmation =
    crash !== undefined && node.child !== undefined
      ? await confirmCrash(target, node, opts.seed, crash.inflight)
      : undefined;

  const { text, failed } = formatSummary({
    opts,
    stats,
    skipped: result.skipped,
    durationMs: result.durationMs,
    rss: result.rss,
    rssEnd: result.rssEnd,
    crash,
    ownNode: node.child !== undefined,
    crashLog,
    confirmation,
    probes,
    targetHref: target.url.href,
  });
  console.log(text);
  return failed ? 1 : 0;
}

let code = 1;
process.once("SIGINT", () => {
  void node.stop().then(() => process.exit(130));
});
try {
  code = await main();
} catch (e) {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  code = 2;
} finally {
  agent.destroy();
  await node.stop();
}
process.exit(code);
