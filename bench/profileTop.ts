// Summarises a V8 .cpuprofile (`node --cpu-prof`, e.g. from `npm run bench:follow -- --cpu-prof
// DIR`): the busy share of the sampled time, the functions with the most self time, and the
// share of time under (inclusive) functions whose name matches --under patterns, so a bench's
// report can say where a thread spent its time without a profiler UI.
// Run: node --import tsx bench/profileTop.ts FILE.cpuprofile [--top 25] [--under a,b,c]
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

type Node = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
};
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[] };

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "25" }, under: { type: "string", default: "" } },
});
const file = positionals[0];
if (file === undefined)
  throw new Error("usage: profileTop.ts FILE.cpuprofile [--top N] [--under a,b]");
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// Time per node from the samples (each sample's delta is the time until the next).
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => {
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
});
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const name = (n: Node) => {
  const where = n.callFrame.url.split("/").slice(-2).join("/");
  return `${n.callFrame.functionName || "(anonymous)"} ${where}:${n.callFrame.lineNumber + 1}`;
};
const idle = [...selfUs].filter(([id]) => byId.get(id)?.callFrame.functionName === "(idle)");
const idleUs = idle.reduce((a, [, us]) => a + us, 0);
console.log(
  `${file}: ${(total / 1e6).toFixed(2)} s sampled, busy ${((total - idleUs) / 1e6).toFixed(2)} s (${(((total - idleUs) / total) * 100).toFixed(1)}%)`,
);

const self = new Map<string, number>();
for (const [id, us] of selfUs) {
  const key = name(byId.get(id)!);
  self.set(key, (self.get(key) ?? 0) + us);
}
const busy = total - idleUs;
console.log(`top self time (share of busy time):`);
for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
  if (!key.startsWith("(idle)"))
    console.log(
      `  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${key}`,
    );

// Self time by where the code lives: a package under node_modules, a directory of src/, or a
// V8/Node category (the garbage collector, native code).
const where = (url: string, fn: string): string => {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg !== null) return pkg[1]!;
  const src = /\/src\/([^/]+)\//.exec(url);
  if (src !== null) return `src/${src[1]}`;
  if (url.startsWith("node:")) return "node internals";
  return url === "" ? fn || "(native)" : "other";
};
const groups = new Map<string, number>();
for (const [id, us] of selfUs) {
  const n = byId.get(id)!;
  if (n.callFrame.functionName === "(idle)") continue;
  const key = where(n.callFrame.url, n.callFrame.functionName);
  groups.set(key, (groups.get(key) ?? 0) + us);
}
console.log("self time by package or source directory (share of busy time):");
for (const [key, us] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, 15))
  console.log(
    `  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${key}`,
  );

// Inclusive time under functions matching each pattern (a sample counts once per pattern).
for (const pattern of values.under.split(",").filter((p) => p !== "")) {
  let us = 0;
  for (const [id, t] of selfUs) {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      if (byId.get(at)!.callFrame.functionName.includes(pattern)) {
        us += t;
        break;
      }
    }
  }
  console.log(
    `under ${pattern}: ${(us / 1000).toFixed(0)} ms, ${((us / busy) * 100).toFixed(1)}% of busy time`,
  );
}
