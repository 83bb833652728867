// The follower's prefetch step: before a flashblock (or a canonical block) runs, what it will read
// of the upstream's state is fetched in as few round trips as can be, so that its execution does
// not wait on one request per account or slot (each a whole round trip to a provider 20–80 ms
// away). In order:
//  1. what its transactions name (prefetchPlan.ts): senders, recipients, access lists, the fee
//     recipient. Held here already (the usual case once the follower runs warm): nothing is
//     asked, no dry run is made, and the flashblock runs at once;
//  2. otherwise those are asked for (one batch), and while they are on their way a dry run
//     (discovery.ts) learns what the transactions read beyond them: asked for at once, so it
//     rides the same round trip;
//  3. the transactions that read a placeholder run dry again once that is fetched, at most
//     MAX_DRY_RUNS in all, each run's new reads one more batch;
//  4. the executor then runs for real. If it still has to wait for the upstream (a read nothing
//     foresaw: a flashblock that looked warm, a value that sent its code elsewhere), the rest of
//     the transactions run dry meanwhile and what they read is asked for while the executor
//     waits, so a flashblock with many such reads waits for one or two round trips, not one each.
import type { BlockTransaction } from "../chain/op/blockTx.ts";
import type { HeadStore } from "../exec/state/headReads.ts";
import type { StateDiff } from "../pending/types.ts";
import type { UpstreamState } from "../services/upstreamState.ts";
import type { DryRun, DryRunBlock } from "./discovery.ts";
import { PendingWrites } from "./pendingWrites.ts";
import { heldState, missingReads, namedReads, type ReadSet } from "./prefetchPlan.ts";

/** Dry runs before the executor's at most (each after a round trip). */
export const MAX_DRY_RUNS = 2;
/** Dry runs started by the executor's waits, per flashblock or block, at most. */
const MAX_WAIT_RUNS = 2;

/** What the prefetch step did, since the follower started. */
export type PrefetchStats = {
  /** Flashblocks and blocks prepared, and of them those that named state not held here. */
  prepared: number;
  cold: number;
  /** Batches of reads asked for, and the accounts and slots in them. */
  batches: number;
  accounts: number;
  slots: number;
  dryRuns: number;
  /** Times the executor still waited on the upstream. */
  waits: number;
};

type Store = HeadStore;

type Work = {
  readonly txs: readonly BlockTransaction[];
  readonly block: DryRunBlock;
  readonly pending: PendingWrites | undefined;
  /** The transaction the executor runs now. */
  index: number;
  waitRuns: number;
};

export class Prefetcher {
  readonly stats: PrefetchStats = {
    prepared: 0,
    cold: 0,
    batches: 0,
    accounts: 0,
    slots: 0,
    dryRuns: 0,
    waits: 0,
  };
  private readonly pending = new PendingWrites();
  private work: Work | undefined;
  private waitRun: Promise<void> | undefined;
  /** The block whose system calls' state was last asked for. */
  private systemFor: bigint | undefined;

  constructor(
    private readonly store: Store,
    /** The upstream's state itself (not the executor's view of it, which reports waits here). */
    private readonly upstream: UpstreamState,
    private readonly dryRun: DryRun,
  ) {}

  /** A pending block begins, or is dropped: nothing of it is written. */
  resetPending(): void {
    this.pending.clear();
  }

  /** A flashblock's writes: what the next flashblocks of the block start from. */
  applied(diff: StateDiff): void {
    this.pending.add(diff);
  }

  /**
   * Before `txs` run in `block` (on the pending block's writes so far when `onPending`, else on
   * the head): fetches what they will read. Never throws (a read that fails is the executor's to
   * report, when it needs the value).
   */
  async prepare(
    txs: readonly BlockTransaction[],
    block: DryRunBlock,
    onPending: boolean,
  ): Promise<void> {
    const pending = onPending ? this.pending : undefined;
    this.work = { txs, block, pending, index: 0, waitRuns: 0 };
    this.stats.prepared++;
    const held = heldState(this.store, this.upstream, pending ?? new PendingWrites());
    if (this.systemFor !== block.number) {
      // Needed when the block is sealed, not before: asked for now, not waited for.
      this.systemFor = block.number;
      const system = missingReads(this.dryRun.systemReads(block), held);
      if (system.size > 0) void this.fetch(system);
    }
    const named = missingReads(namedReads(txs, block.coinbase), held);
    if (named.size === 0) return;
    this.stats.cold++;
    const asked = [this.fetch(named)];
    this.stats.dryRuns++;
    let run = await this.dryRun.run(txs, block, pending, named);
    if (run.misses.size > 0) asked.push(this.fetch(run.misses));
    await Promise.all(asked);
    let again = run.missed.map((i) => txs[i]!);
    for (let n = 1; n < MAX_DRY_RUNS && again.length > 0; n++) {
      this.stats.dryRuns++;
      run = await this.dryRun.run(again, block, pending);
      if (run.misses.size === 0) break;
      await this.fetch(run.misses);
      again = run.missed.map((i) => again[i]!);
    }
  }

  /** The executor is about to run transaction `index` of what was prepared. */
  at(index: number): void {
    if (this.work !== undefined) this.work.index = index;
  }

  /** What was prepared has run (or failed): the executor's waits are no longer its. */
  finished(): void {
    this.work = undefined;
  }

  /**
   * The executor waits for the upstream (told by the executor's view of it, at each read that
   * has to be fetched). The transactions from the one running on run dry, and what they read is
   * asked for now, while the executor waits; the run starts after this macrotask, so the
   * executor's own read leaves first.
   */
  executorWaits(): void {
    this.stats.waits++;
    const work = this.work;
    if (work === undefined || this.waitRun !== undefined || work.waitRuns >= MAX_WAIT_RUNS) return;
    work.waitRuns++;
    this.waitRun = new Promise<void>((ok) => setImmediate(ok))
      .then(async () => {
        if (this.work !== work) return;
        this.stats.dryRuns++;
        const run = await this.dryRun.run(work.txs.slice(work.index), work.block, work.pending);
        if (run.misses.size > 0) await this.fetch(run.misses);
      })
      .catch(() => undefined)
      .finally(() => {
        this.waitRun = undefined;
      });
  }

  private fetch(reads: ReadSet): Promise<void> {
    this.stats.batches++;
    this.stats.accounts += reads.accounts.size;
    this.stats.slots += reads.slots.size;
    return this.upstream
      .prefetch([...reads.accounts.values()], [...reads.slots.values()])
      .catch(() => undefined);
  }
}

/**
 * The upstream's state as the executor reads it: each read that has to be fetched (not in the
 * datadir's cache of the upstream) is told to `onWait` first.
 */
export function reportingWaits(upstream: UpstreamState, onWait: () => void): UpstreamState {
  return {
    account(address) {
      if (upstream.peekAccount(address) === undefined) onWait();
      return upstream.account(address);
    },
    storage(address, slot) {
      if (upstream.peekStorage(address, slot) === undefined) onWait();
      return upstream.storage(address, slot);
    },
    code(address) {
      const account = upstream.peekAccount(address);
      if (
        account === undefined ||
        (account?.codeHash !== undefined && upstream.codeByHash(account.codeHash) === undefined)
      )
        onWait();
      return upstream.code(address);
    },
    codeByHash: (codeHash) => upstream.codeByHash(codeHash),
    peekAccount: (address) => upstream.peekAccount(address),
    peekStorage: (address, slot) => upstream.peekStorage(address, slot),
    prefetch: (accounts, slots) => upstream.prefetch(accounts, slots),
  };
}
