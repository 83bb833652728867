// After a crash: start a fresh node and replay the suspects one at a time (quick requests first),
// to name the case that kills the node on its own.
import { rmSync } from "node:fs";
import { generateCase } from "./cases/generate.ts";
import type { FuzzCase } from "./cases/types.ts";
import { detectEnv } from "./env.ts";
import type { NodeProcess } from "./nodeProcess.ts";
import { only127 } from "./options.ts";
import { type Confirmation, describe } from "./report.ts";
import { runCase } from "./runCase.ts";
import type { Target } from "./target.ts";
import { sleep } from "./util.ts";

/** Points `target` at the fresh node, so the caller's later requests go there too. */
export async function confirmCrash(
  target: Target,
  node: NodeProcess,
  seed: number,
  suspects: readonly FuzzCase[],
): Promise<Confirmation> {
  if (suspects.length === 0) return { text: "no case was in flight" };
  if (node.child !== undefined) rmSync(node.child.dir, { recursive: true, force: true });
  node.stopping = false;
  node.crashInflight = undefined;
  const started = await node.start();
  target.url = only127(started.url, "the node URL");
  const { env } = await detectEnv(target, seed, started.dedicated);
  const quickFirst = [...suspects].sort(
    (a, b) => Number(a.transport !== "http") - Number(b.transport !== "http"),
  );
  const deadline = Date.now() + 120_000;
  for (const s of quickFirst) {
    if (Date.now() > deadline) return { text: "not found within 120 s" };
    const c = generateCase(seed, s.index, env); // the same case with this node's key
    await runCase(target, c);
    const child = node.child!;
    const until = Date.now() + 500;
    while (child.exited === undefined && Date.now() < until) await sleep(20);
    if (child.exited !== undefined)
      return {
        text: `case #${c.index} alone crashes it (${child.exited}): ${describe(c)}`,
        culprit: c.index,
      };
  }
  return { text: "no single suspect crashes it on its own" };
}
