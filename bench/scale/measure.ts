// Measurements of the archive-scale benchmark: historical storage read latency at the store level,
// a correctness check of historical reads against the model's log, and disk usage.
import { spawnSync } from "node:child_process";
import type { ChainStore } from "../../src/store/archive.ts";
import { equalBytes } from "../../src/util/hex.ts";
import {
  accountAddress,
  drawSlot,
  rng,
  type ScaleModel,
  slotAddress,
  slotKey,
  TIERS,
  tierOf,
  valueBytes,
} from "./model.ts";

export type Latency = {
  readonly label: string;
  readonly head: number;
  readonly reads: number;
  /** Microseconds. */
  readonly p50: number;
  readonly p99: number;
  readonly p50ByTier: Readonly<Record<string, number>>;
};

export type ReadPlan = {
  readonly label: string;
  /** Targets are drawn uniformly from [from, to]. */
  readonly from: number;
  readonly to: number;
  readonly reads: number;
  /** Only slots first changed at or before this block are read: the same population every phase. */
  readonly populationCap: number;
  readonly seed: number;
  /** Untimed reads first (other pairs of the same draw): the process maps the pages it reads. */
  readonly warmup: number;
};

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** p50/p99 of StateReader.storage over `plan.reads` random (slot, block) reads, after a warm-up. */
export function measureReads(store: ChainStore, model: ScaleModel, plan: ReadPlan): Latency {
  const pickSlot = rng(plan.seed);
  const pickBlock = rng(plan.seed ^ 0x9e3779b9 ^ plan.from);
  const WARMUP = plan.warmup;
  const n = WARMUP + plan.reads;
  const addresses: Uint8Array[] = [];
  const slots: Uint8Array[] = [];
  const tiers: string[] = [];
  const blocks = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let g = drawSlot(pickSlot);
    for (
      let tries = 0;
      model.firstChange[g] === 0 || model.firstChange[g]! > plan.populationCap;
    ) {
      if (++tries > 10_000_000) throw new Error("no slot with history in the read population");
      g = drawSlot(pickSlot);
    }
    addresses.push(slotAddress(g));
    slots.push(slotKey(g));
    tiers.push(tierOf(g).name);
    blocks[i] = plan.from + Math.floor(pickBlock() * (plan.to - plan.from + 1));
  }
  store.env.refresh();
  const us = new Float64Array(plan.reads);
  let sink = 0;
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    sink += store.storage(addresses[i]!, slots[i]!, blocks[i]!).length;
    const dt = Number(process.hrtime.bigint() - t) / 1000;
    if (i >= WARMUP) us[i - WARMUP] = dt;
  }
  if (sink < 0) throw new Error("unreachable");
  const p50ByTier: Record<string, number> = {};
  for (const tier of TIERS) {
    const own = us.filter((_, i) => tiers[i + WARMUP] === tier.name).sort();
    if (own.length > 0) p50ByTier[tier.name] = percentile(own, 50);
  }
  const sorted = us.slice().sort();
  return {
    label: plan.label,
    head: store.headNumber() ?? 0,
    reads: plan.reads,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    p50ByTier,
  };
}

export function formatLatency(l: Latency): string {
  const tiers = Object.entries(l.p50ByTier)
    .map(([name, p50]) => `${name} ${p50.toFixed(2)}`)
    .join(", ");
  return `reads @head ${l.head.toLocaleString("en-US")}, ${l.label}: p50 ${l.p50.toFixed(2)} µs, p99 ${l.p99.toFixed(1)} µs (${l.reads.toLocaleString("en-US")} reads; p50 by tier: ${tiers} µs)`;
}

export type Verification = {
  readonly pairs: number;
  readonly mismatches: number;
  readonly history: number;
};

/**
 * Compares StateReader.storage(slot, block) with the value the model's log says the slot held at
 * the end of that block, for `pairs` random pairs over the logged sample (a third per tier); half
 * the blocks are uniform, half sit on a logged change (the change block or the one before it).
 * Also checks 1,000 accounts' current state against the model.
 */
export function verify(
  store: ChainStore,
  model: ScaleModel,
  pairs: number,
  seed: number,
): Verification {
  const head = store.headNumber() ?? 0;
  const byTier = TIERS.map((tier) => [...model.log.keys()].filter((g) => tierOf(g) === tier));
  const next = rng(seed);
  let mismatches = 0;
  let history = 0;
  store.env.refresh();
  for (let i = 0; i < pairs; i++) {
    const list = byTier[i % byTier.length]!.length > 0 ? byTier[i % byTier.length]! : byTier[0]!;
    const g = list[Math.floor(next() * list.length)]!;
    const entries = model.log.get(g)!;
    let block: number;
    if (i % 2 === 0) block = Math.floor(next() * head);
    else {
      const at = entries[2 * Math.floor(next() * (entries.length / 2))]!;
      block = Math.max(0, at - (next() < 0.5 ? 1 : 0));
    }
    if (block < head && entries.some((b, k) => k % 2 === 0 && b > block)) history++;
    const expected = valueBytes(model.loggedValueAt(g, block));
    const got = store.storage(slotAddress(g), slotKey(g), block);
    if (!equalBytes(got, expected)) {
      mismatches++;
      if (mismatches <= 5)
        console.error(
          `MISMATCH slot #${g} at block ${block}: store ${got.length} bytes, model ${expected.length} bytes`,
        );
    }
  }
  for (let i = 0; i < 1_000; i++) {
    const want = model.account(i);
    const got = store.currentAccount(accountAddress(i));
    if (want?.nonce !== got?.nonce || want?.balance !== got?.balance) {
      mismatches++;
      if (mismatches <= 5) console.error(`MISMATCH account #${i}`);
    }
  }
  return { pairs: pairs + 1_000, mismatches, history };
}

export type Disk = {
  /** env.sizeOnDisk(): used pages × page size. */
  readonly lmdbBytes: number;
  /** `du -sb`: apparent size of the datadir. */
  readonly duApparent: number;
  /** `du -sB1`: blocks actually allocated. */
  readonly duAllocated: number;
};

function du(flag: string, dir: string): number {
  const r = spawnSync("du", [flag, dir], { encoding: "utf8" });
  return Number(r.stdout.split("\t")[0]);
}

export function diskUsage(store: ChainStore, datadir: string): Disk {
  return {
    lmdbBytes: store.env.sizeOnDisk(),
    duApparent: du("-sb", datadir),
    duAllocated: du("-sB1", datadir),
  };
}

export function formatDisk(d: Disk, storageChanges: number): string {
  const gib = (n: number) => `${(n / 1024 ** 3).toFixed(2)} GiB`;
  return `disk: sizeOnDisk ${d.lmdbBytes.toLocaleString("en-US")} B (${gib(d.lmdbBytes)}), du -sb ${d.duApparent.toLocaleString("en-US")} B (${gib(d.duApparent)}), du -sB1 ${d.duAllocated.toLocaleString("en-US")} B; ${(d.lmdbBytes / Math.max(1, storageChanges)).toFixed(1)} B per storage change (whole archive ÷ storage changes)`;
}
