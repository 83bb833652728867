// The developer's cases of `npm run bench:exec`, on `flashnode dev --ethereum` (its own block
// clock, 2-s blocks) and anvil: a burst of mixed transactions sent at once (the time until all
// are accepted, and their execution's Mgas per CPU-second and per wall second), then, with
// automine on (evm_setAutomine), Uniswap swaps one at a time, each from send to receipt.
import type { Hex } from "viem";
import { recoverTransactionAddress } from "viem";
import { startAnvil } from "../compare/peers.ts";
import { GAS_LIMIT, type RunningNode, startDev } from "./execNodes.ts";
import {
  type Burst,
  measureBurstAnvil,
  measureBurstDev,
  type RoundTrip,
  sendToReceipt,
} from "./execPaths.ts";
import type { PhaseContext } from "./execPhases.ts";
import type { Plan } from "./execPlan.ts";
import { type Column, fmt, median, PathResults, printLatencies } from "./execReport.ts";
import { rpc } from "./followPhase.ts";
import { mineBlock } from "./txSigner.ts";
import { runSetup } from "./uniswapSetup.ts";

export type BurstPhase = {
  readonly execution: PathResults;
  readonly accept: Map<Column, number[]>;
  readonly automine: Map<Column, RoundTrip[]>;
};

/** Each sender's last transaction of `raws`: once each has a receipt, all have. */
async function lastOfEachSender(raws: readonly Hex[]): Promise<Hex[]> {
  const last = new Map<string, Hex>();
  for (const raw of raws)
    last.set(await recoverTransactionAddress({ serializedTransaction: raw as never }), raw);
  return [...last.values()];
}

export async function burstPhase(
  ctx: PhaseContext,
  plan: Plan,
  bursts: readonly Hex[][],
  swaps: readonly Hex[],
): Promise<BurstPhase> {
  const nodes = new Map<Column, RunningNode>();
  for (const side of ctx.sides) {
    const n = await startDev(
      side,
      ["--ethereum", "--accounts", String(ctx.senders + 1)],
      ctx.measuredCpu,
    );
    ctx.children.push(n.child);
    nodes.set(side.name, n);
  }
  const a = await startAnvil({
    accounts: ctx.senders + 1,
    gasLimit: GAS_LIMIT,
    ...(ctx.measuredCpu === undefined ? {} : { cpus: ctx.measuredCpu }),
  });
  ctx.children.push(a.child);
  nodes.set("anvil", { child: a.child, pid: a.child.pid!, url: a.url, base: a.url });
  for (const [name, n] of nodes) {
    await runSetup(n.url, plan.setup);
    await mineBlock(n.url, plan.warm);
    ctx.log(`burst phase: ${name} set up (${n.url})`);
  }
  const execution = new PathResults(
    "burst: mixed transactions (40% ERC-20 transfers, 30% V2 swaps, 30% V3 swaps) sent at once; flashnode dev --ethereum (2-s blocks) from the first send until each has its receipt; anvil: one evm_mine after all were accepted",
    "the whole process",
  );
  const accept = new Map<Column, number[]>();
  for (const [r, raws] of bursts.entries()) {
    const watch = await lastOfEachSender(raws);
    const order = r % 2 === 0 ? [...nodes] : [...nodes].reverse();
    for (const [name, n] of order) {
      const b: Burst =
        name === "anvil" ? await measureBurstAnvil(n, raws) : await measureBurstDev(n, raws, watch);
      execution.add("mixed", name, b.execution);
      accept.set(name, [...(accept.get(name) ?? []), b.acceptSeconds]);
    }
    ctx.log(`burst phase: burst ${r + 1} of ${bursts.length} done`);
  }
  // Automine: a block per transaction, on both.
  for (const n of nodes.values()) await rpc(n.url, "evm_setAutomine", [true]);
  const automine = new Map<Column, RoundTrip[]>();
  for (let i = 0; i < swaps.length; i += 10) {
    const chunk = swaps.slice(i, i + 10);
    for (const [name, n] of (i / 10) % 2 === 0 ? [...nodes] : [...nodes].reverse())
      automine.set(name, [...(automine.get(name) ?? []), ...(await sendToReceipt(n.url, chunk))]);
  }
  return { execution, accept, automine };
}

export function printAccept(accept: ReadonlyMap<Column, readonly number[]>): void {
  const parts = [...accept].map(([c, s]) => `${c} ${fmt(median(s))} s`);
  const a = accept.get("after");
  const v = accept.get("anvil");
  const ratio =
    a !== undefined && v !== undefined
      ? `; after/anvil ×${(median(a) / median(v)).toFixed(2)}`
      : "";
  console.log(`  every transaction accepted (answered) after, median: ${parts.join(", ")}${ratio}`);
}

/**
 * The automine rounds: send → receipt, and its two parts (until the send is answered; from the
 * answer until the receipt is seen), with how many receipts the first request after the answer
 * did not find (read-your-writes: none should).
 */
export function printAutomine(automine: ReadonlyMap<Column, readonly RoundTrip[]>): void {
  const of = (f: (r: RoundTrip) => number) =>
    new Map([...automine].map(([c, rs]) => [c, rs.map(f)] as const));
  printLatencies(
    "automine: Uniswap V2 and V3 swaps in turn, each sent alone, eth_sendRawTransaction → its receipt",
    of((r) => r.receiptMs),
  );
  printLatencies(
    "  of which: until the send is answered",
    of((r) => r.answeredMs),
  );
  printLatencies(
    "  of which: from the answer until the receipt is seen",
    of((r) => r.receiptMs - r.answeredMs),
  );
  const missed = [...automine].map(
    ([c, rs]) => `${c} ${rs.filter((r) => !r.seenAtOnce).length} of ${rs.length}`,
  );
  console.log(`  receipt not found by the first request after the answer: ${missed.join(", ")}`);
}
