// Every transaction of a `npm run bench:exec` run, signed before any node starts: the Uniswap
// set-up, a warm-up block, and each round's load of each workload. Each group of nodes (the dev
// chains, the followed chains, the burst's chains, anvil) receives the same bytes in the same
// order, so their states stay identical and a signed load is valid on each.
import type { Hex } from "viem";
import { type WorkloadKind, WorkloadSigner } from "./execWorkload.ts";
import { TxSigner } from "./txSigner.ts";
import { signUniswapSetup, type UniswapSetup } from "./uniswapSetup.ts";

export type Plan = {
  readonly setup: UniswapSetup;
  /** One block of every workload, to warm each node's code paths and state. */
  readonly warm: readonly Hex[];
  readonly workloads: WorkloadSigner;
};

/** The set-up and warm-up, by accounts 0 (deployer) and 1..senders. */
export async function signPlan(senders: number): Promise<Plan> {
  const signer = new TxSigner(31337, senders + 1);
  const setup = await signUniswapSetup(
    signer,
    Array.from({ length: senders }, (_, i) => i + 1),
  );
  const workloads = new WorkloadSigner(signer, setup.deployment);
  const warm: Hex[] = [];
  for (const kind of ["eth", "erc20", "v2", "v3", "chain"] as const)
    warm.push(...(await workloads.makeWorkload(kind, 10)));
  return { setup, warm, workloads };
}

/** `rounds` loads of each kind, `count(kind)` transactions each: [round][kind]. */
export async function signRounds(
  plan: Plan,
  rounds: number,
  kinds: readonly WorkloadKind[],
  count: (kind: WorkloadKind) => number,
): Promise<Map<WorkloadKind, Hex[]>[]> {
  const out: Map<WorkloadKind, Hex[]>[] = [];
  for (let r = 0; r < rounds; r++) {
    const round = new Map<WorkloadKind, Hex[]>();
    for (const kind of kinds) round.set(kind, await plan.workloads.makeWorkload(kind, count(kind)));
    out.push(round);
  }
  return out;
}

/** `n` Uniswap swaps, V2 and V3 in turn (the automine case's workload). */
export async function signSwaps(plan: Plan, n: number): Promise<Hex[]> {
  const out: Hex[] = [];
  for (let i = 0; i < n; i++)
    out.push(...(await plan.workloads.makeWorkload(i % 2 === 0 ? "v2" : "v3", 1)));
  return out;
}
