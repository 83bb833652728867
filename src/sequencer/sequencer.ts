// The block producer: transactions execute onto the block being built as they arrive, back to
// back while any wait; every flashblock interval, on a fixed grid, it publishes a flashblock of
// what ran since the last one; every block time (interval mining, mining.ts) it seals that block
// into the archive (one atomic write) and opens the next. With automine each transaction gets a
// block of its own, sealed as soon as its flashblock is (execution.ts). All work runs through one
// queue (stepQueue.ts), so submissions, execution, flashblocks and seals never interleave: a
// submission or a tick waits for at most the one transaction executing.
import type { Common } from "@ethereumjs/common";
import type { BlockTransaction } from "../chain/op/blockTx.ts";
import type { DevL1Config } from "../chain/op/l1Info.ts";
import { encodingOf } from "../chain/txFacts.ts";
import type { BlockExecutor } from "../exec/blockExecutor.ts";
import type { FlashblockUpdate, PendingTransaction, SealedUpdate } from "../pending/types.ts";
import type { DevAnswer, DevRequest, PoolContent } from "../services/transactions.ts";
import type { ChainStore, NextOpening } from "../store/archive.ts";
import { includeInBlock, openBlock, type RecordedOpening } from "./blockAssembly.ts";
import { assembleFlashblock, type Building } from "./building.ts";
import { DepositQueue } from "./deposits.ts";
import { control } from "./devRequests.ts";
import { DevState } from "./devState.ts";
import { automineWaiting, executeOneWaiting, executeWaiting } from "./execution.ts";
import { acceptTransaction, type SubmitResult } from "./intake.ts";
import { epochNow, IntakeTimes } from "./intakeTimes.ts";
import { blockTimeUp, initialMining, type MiningMode } from "./mining.ts";
import { poolContent } from "./poolContent.ts";
import { rebuildBlock } from "./rebuild.ts";
import { Recovery, rebuildDamaged } from "./recovery.ts";
import { commitBlock, openNextBlock, SealReads, TimestampLimit } from "./sealing.ts";
import { StepQueue } from "./stepQueue.ts";
import { TxPool } from "./txPool.ts";

export type SequencerOptions = {
  /** Interval mining's block time; 0: automine. */
  readonly blockTimeMs: number;
  /** A block per transaction, sealed as soon as its flashblock is (--automine). */
  readonly automine?: boolean;
  readonly flashblockIntervalMs: number;
  /** The gas limit blocks move towards (geth's gas ceiling), within what each header may change. */
  readonly gasLimit: bigint;
  readonly coinbase: Uint8Array;
  /** OP-stack chains: the simulated L1 each block's L1-info deposit reports. */
  readonly l1?: DevL1Config;
};

/** How long a seal may wait for what it reads of a fork's upstream before /readyz says so. */
const SEAL_WAIT_GRACE_MS = 1_000;

export type SequencerLog = (
  level: "info" | "warn" | "error",
  msg: string,
  fields: Record<string, unknown>,
) => void;

export class Sequencer {
  readonly pool = new TxPool();
  /** Impersonation, the clock, snapshots (dev methods, src/sequencer/devRequests.ts). */
  readonly dev = new DevState();
  /**
   * When each pooled transaction was submitted (the start of its pre-confirmation latency);
   * taken as it is included (blockAssembly.ts).
   */
  readonly intake = new IntakeTimes();
  /** The block being built (replaced at each seal, and by the dev requests: replace()). */
  private block: Building | undefined;
  /** The stream position of the last update (chainView.ts): it never goes back. */
  private position = 0;
  /** Every step on the chain, one at a time; the pool's execution in the background. */
  private readonly steps = new StepQueue(
    () => this.executeOne(),
    () => this.pool.size > 0 && !this.miningMode.automine,
  );
  /**
   * Whether a step other than the pool's own execution and intake ran since the pool last read
   * its senders' nonces (a dev method, a seal's next block may have changed them).
   */
  private noncesStale = true;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Told of each block right after its commit, before the next block opens (the publisher). */
  onBlockCommitted: ((number: number) => void) | undefined;
  /** How blocks are sealed (mining.ts); switched by evm_setAutomine & co. (setMining). */
  private miningMode: MiningMode;
  /** When the current mining mode began (performance.now()): interval mining counts from it. */
  private miningSince = 0;
  /** Told of each transaction the pool takes (pool nonces, the log) whose answer does not tell. */
  onSubmitted: ((r: SubmitResult) => void) | undefined;
  /** Blocks at the largest timestamp are not sealed (canSeal). */
  private readonly timestampLimit = new TimestampLimit();
  /**
   * OP stack: user deposits waiting for the next block's start, and each block's opening ones
   * (blockAssembly.ts).
   */
  readonly deposits: DepositQueue;
  /**
   * A step on the block being built that fails midway leaves it to be repaired before the next
   * one; why the chain does not move meanwhile (recovery.ts).
   */
  private readonly recovery: Recovery;
  /** A fork: what the seal reads of the upstream, fetched off the queue. */
  private readonly sealReads: SealReads;

  constructor(
    readonly executor: BlockExecutor,
    readonly store: ChainStore,
    readonly common: Common,
    readonly opts: SequencerOptions,
    private readonly out: (update: FlashblockUpdate | SealedUpdate) => void,
    readonly log: SequencerLog = () => {},
  ) {
    this.deposits = new DepositQueue(common, opts.l1);
    this.miningMode = initialMining(opts.automine === true, opts.blockTimeMs);
    this.recovery = new Recovery(log, {
      block: () => this.block?.base.number ?? 0,
      stopping: () => this.stopped,
      announce: async (sealed) => {
        await this.executor.abandonBuild();
        // The next block opens as the seal's write recorded it (its deposits are taken).
        const recorded = this.store
          .recordedFlashblocks(sealed.number + 1)
          .find((r) => r.index === 0);
        this.publish({ ...sealed, next: await this.openNext(performance.now(), recorded) });
      },
      rebuild: () => rebuildDamaged(this),
    });
    this.sealReads = new SealReads(executor, (message) => this.recovery.sealWaiting(message));
  }

  /**
   * Why the chain does not move now (for /readyz), undefined while it does; `upstreamSaid`: the
   * upstream's unreachability is reported apart.
   */
  stalled(upstreamSaid = false): string | undefined {
    return this.block === undefined
      ? undefined
      : this.recovery.reason(SEAL_WAIT_GRACE_MS, upstreamSaid);
  }

  get mining(): MiningMode {
    return this.miningMode;
  }

  /** Switches the mining mode (run in the queue: devRequests.ts). */
  setMining(mode: MiningMode): void {
    this.miningMode = mode;
    this.miningSince = performance.now();
  }

  /** A sequencer that replaces another (anvil_reset): its stream goes on after `position`. */
  continueFrom(position: number): void {
    this.position = Math.max(this.position, position);
  }

  /**
   * Sends an update stamped with its stream position: the block number and flashblock index
   * order it, except after a revert or a reopened block, where it goes on from the last one.
   */
  publish(update: FlashblockUpdate | SealedUpdate): void {
    const fb = update.kind === "flashblock" ? update : update.next;
    this.position = Math.max(this.position + 1, fb.base.number * 1024 + fb.index);
    const stamped = { ...fb, position: this.position };
    this.out(update.kind === "flashblock" ? stamped : { ...update, next: stamped });
  }
  /**
   * A pre-confirmation is a promise: the flashblock's transactions are durably recorded before
   * anyone (RPC readers, the stream) sees them, so a restart seals the same block.
   */
  publishFlashblock(b: Building, update: FlashblockUpdate, ops: readonly Uint8Array[] = []): void {
    // An empty flashblock promises nothing: not recorded (a durable write five times a second on
    // an idle chain). After a crash the block goes on from the last recorded index.
    if (update.index === 0 || update.transactions.length > 0 || ops.length > 0)
      this.store.recordFlashblock(
        b.base.number,
        update.index,
        b.base.timestamp,
        update.transactions.map((t) => t.raw),
        ops,
      );
    this.publish(update);
  }

  /** Runs `fn` after everything queued before it (a flashblock tick: ahead of the rest). */
  serial<T>(fn: () => Promise<T>, kind: "tick" | "step" = "step"): Promise<T> {
    return this.steps.run(() => {
      this.noncesStale = true;
      return fn();
    }, kind);
  }

  async start(): Promise<void> {
    await this.serial(async () => {
      const next = (this.store.headNumber() ?? 0) + 1;
      const recorded = this.store.recordedFlashblocks(next);
      // After a crash: the same transactions, in the same order and flashblocks, before any new one.
      await rebuildBlock(this, recorded, { record: true });
      if (recorded.length > 1)
        this.log("info", "rebuilt the pre-confirmed block from its record", {
          block: next,
          flashblocks: recorded.length,
          transactions: this.block?.transactions.length ?? 0,
        });
    });
    this.schedule();
  }

  /** A dev method's request (src/sequencer/devRequests.ts), between two executions. */
  control(request: DevRequest): Promise<DevAnswer> {
    if (request.op === "submitUnsigned")
      return this.submit(request.raw, { unsigned: true }).then((r) => ({ hash: r.hash }));
    return this.serial(() => this.recovery.guard(() => control(this, request)));
  }

  /** The block being built; throws when the sequencer is not running (devRequests.ts). */
  current(): Building {
    if (this.block === undefined) throw new Error("sequencer is not running");
    return this.block;
  }

  /** The block being built, if the sequencer runs (intake.ts). */
  building(): Building | undefined {
    return this.block;
  }

  /** Makes `b` the block being built: a block rebuilt from its record, or reopened. */
  replace(b: Building): void {
    this.block = b;
  }

  /**
   * Resolves once no step waits and everything the pool can run now has run (held for the next
   * flashblock): a test's tick then publishes all it sent.
   */
  idle(): Promise<void> {
    return this.steps.idle();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.steps.idle();
  }

  /**
   * Takes a transaction into the pool: answered once it is checked and pooled, waiting for at
   * most the one transaction executing; with automine, once its block is sealed.
   * `unsigned` (eth_sendUnsignedTransaction): a placeholder signature stands for its sender
   * whether or not that sender is impersonated. `told`: the submitter passes the result on
   * itself (the RPC thread's send), so onSubmitted is not called for it.
   */
  async submit(
    raw: Uint8Array,
    how: { readonly unsigned?: boolean; readonly told?: boolean } = {},
  ): Promise<SubmitResult> {
    // Taken before the queue: time spent waiting behind a flashblock or a seal counts.
    const receivedAt = epochNow();
    // A fork fetches what the transaction names (sender, recipient, access list) before it
    // queues: an upstream round trip inside the queue would hold up flashblocks and seals.
    await this.executor.prefetchFor(raw, this.common);
    // Not `serial`: taking a transaction into the pool changes no nonce the pool knows.
    return this.steps.run(async () => {
      const result = await acceptTransaction(this, raw, receivedAt, how.unsigned === true);
      if (how.told !== true) this.onSubmitted?.(result);
      // Accepted is answered: a block that cannot be mined now is mined by a later tick.
      if (this.miningMode.automine) {
        this.noncesStale = true;
        await this.recovery.guard(() => automineWaiting(this)).catch(() => {});
      }
      // Otherwise it runs in the background (executeOne) once this step is done.
      return result;
    }, "intake");
  }

  /** The pool as txpool_* show it (src/sequencer/poolContent.ts), between two executions. */
  poolContent(): Promise<PoolContent> {
    return this.serial(() =>
      poolContent(
        this.block,
        this.pool,
        async (sender) => (await this.executor.currentAccount(sender))?.nonce ?? 0n,
      ),
    );
  }

  /**
   * One transaction of the pool onto the block being built, in the background (stepQueue.ts):
   * whether there may be more. Transactions execute as they arrive, back to back, and a
   * flashblock publishes what has run by its slot. Executing only at the flashblock's slot would
   * put each flashblock's execution time between its slot and its publication, so a busy
   * flashblock after a quiet one would come late: the cadence would follow the load.
   */
  private async executeOne(): Promise<boolean> {
    // A damaged block waits for the next tick's repair; automine mines at intake and ticks.
    if (this.block === undefined || this.stopped || this.recovery.damaged) return false;
    if (this.miningMode.automine) return false;
    const resync = this.noncesStale;
    this.noncesStale = false;
    // A failure is logged once by the stall; the next tick repairs the block.
    return this.recovery.guard(() => executeOneWaiting(this, resync)).catch(() => false);
  }

  /** Next flashblock at its slot; a seal when the block time is up. Slots are kept on a grid. */
  private schedule(): void {
    if (this.stopped || this.block === undefined) return;
    const b = this.block;
    const due = b.nextDue(this.opts.flashblockIntervalMs);
    this.timer = setTimeout(
      () => {
        // A failure is logged once by the stall, and repaired at the next tick.
        void this.serial(() => this.tick(), "tick").then(
          () => this.schedule(),
          () => this.schedule(),
        );
      },
      Math.max(0, due - performance.now()),
    );
  }

  /**
   * Seals the block being built now (anvil's evm_mine): one more flashblock with what is
   * waiting, then the seal. Returns the sealed block's number.
   */
  mine(): Promise<number> {
    return this.serial(async () => {
      await this.tick(true);
      return this.store.headNumber() ?? 0;
    });
  }

  async tick(forceSeal = false): Promise<void> {
    if (this.block === undefined) return;
    await this.recovery.guard(() => this.step(forceSeal));
  }

  private async step(forceSeal: boolean): Promise<void> {
    // Automine: what waits gets its blocks first (one each), then the flashblock goes on.
    if (this.miningMode.automine && !forceSeal) await automineWaiting(this);
    const b = this.current();
    const started = performance.now();
    const interval = this.opts.flashblockIntervalMs;
    b.advance();
    // Decided at the tick's start, before execution: how long this flashblock's execution
    // takes must not move the seal to an earlier slot.
    const last =
      forceSeal || blockTimeUp(this.miningMode, started, b.openedAt, this.miningSince, interval);
    // What ran since the last flashblock; a forced seal takes everything waiting too: a mined
    // block holds what was sent before it.
    const added = b.takeUnpublished();
    if (forceSeal) added.push(...(await this.executeWaiting(b)));
    const update = await this.flashblockOf(b, added, started);
    this.publishFlashblock(b, update);
    if (!last || !this.canSeal(b, forceSeal)) return;
    // A fork's seal reads what the block's writes replace: unless it is at hand, the block stays
    // open (pre-confirming) while it is fetched off the queue; a forced seal waits for it.
    if (!forceSeal && !this.sealReads.ready) {
      this.recovery.sealWaiting();
      this.sealReads.fetchSoon();
      return;
    }
    // The last flashblock of the block, then the seal: a block holds exactly what was published.
    this.publish(await this.sealAndOpen(b, forceSeal));
  }

  /**
   * Seals `b` and opens the next block (its flashblock 0 recorded); the seal, with that
   * flashblock 0, is returned to be published.
   */
  async sealAndOpen(b: Building, offGrid: boolean): Promise<SealedUpdate> {
    const interval = this.opts.flashblockIntervalMs;
    // A fork: what the seal reads of the upstream, before anything is built (a failure here
    // leaves the block as it was).
    await this.executor.fetchSealReads();
    // The next block's opening (its time, its deposits) is recorded in the seal's own write: one
    // durable write per block (with automine, per transaction), not one more for flashblock 0.
    const timestamp = this.dev.clock.following(b.base.timestamp);
    const deposits = this.executor.op === undefined ? [] : this.deposits.preview(timestamp);
    const opening = { timestamp, transactions: deposits.map((d) => encodingOf(d)) };
    const sealed = await commitBlock(
      this,
      b,
      (sealed) => {
        this.recovery.committed(sealed);
        // An exact timestamp asked for (evm_setNextBlockTimestamp) was this block's.
        this.dev.sealed();
        this.onBlockCommitted?.(sealed.number);
        // Intake times of what the pool dropped or replaced meanwhile.
        this.intake.prune((hash) => this.pool.has(hash));
      },
      opening,
    );
    // The user deposits among them are in the next block now (the L1-info deposit is first).
    this.deposits.taken(Math.max(0, deposits.length - 1));
    // The next block keeps the grid: its flashblock 1 is due one interval after this slot, so
    // the seal's time is not added to the next interval. Off the grid (a forced seal, or a tick
    // more than an interval late) it starts now.
    const slot = b.openedAt + b.index * interval;
    const onGrid = !offGrid && performance.now() - slot < interval;
    const next = await this.openNext(onGrid ? slot : performance.now(), opening);
    this.recovery.announced();
    return { ...sealed, next };
  }

  /**
   * Opens the block after the head (its flashblock 0 recorded, or as `recorded` by the seal);
   * flashblock 0 to publish.
   */
  private async openNext(openedAt: number, recorded?: NextOpening): Promise<FlashblockUpdate> {
    const next = await openNextBlock(this, openedAt, recorded);
    // What its seal will read of a fork's upstream (the system contracts' slots), fetched while
    // it is built.
    this.sealReads.fetchSoon();
    return next;
  }

  /** Whether `b` may be sealed (sealing.ts canSeal); evm_mine is told why not. */
  canSeal(b: Building, forceSeal = false): boolean {
    return this.timestampLimit.canSeal(b, forceSeal, this.log);
  }

  /** Executes everything the pool can run onto `b` (execution.ts). */
  executeWaiting(b: Building): Promise<PendingTransaction[]> {
    return executeWaiting(this, b);
  }

  /**
   * Executes one transaction onto the block being built (blockAssembly.ts); throws if it cannot
   * be included.
   */
  include(b: Building, tx: BlockTransaction, allowNoBlobs = false): Promise<PendingTransaction> {
    return includeInBlock(this, b, tx, allowNoBlobs);
  }

  /**
   * Opens the next block (blockAssembly.ts); `recorded` rebuilds one whose flashblocks were
   * recorded (its time and flashblock 0's deposits). On an OP-stack chain the block starts with
   * its deposits.
   */
  open(recorded?: RecordedOpening, openedAt = performance.now()): Promise<Building> {
    return openBlock(this, recorded, openedAt);
  }

  /** Flashblock `b.index` of what ran since the previous one (drains the state diff). */
  async flashblockOf(
    b: Building,
    added: PendingTransaction[],
    started: number,
  ): Promise<FlashblockUpdate> {
    return assembleFlashblock(b, added, await this.executor.drainDiff(), started, this.common);
  }
}
