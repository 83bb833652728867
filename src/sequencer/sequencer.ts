// The block producer: transactions execute onto the block being built as they arrive; every
// flashblock interval, on a fixed grid, it publishes a flashblock of what ran since the last
// one; every block time it seals that block into the archive (one atomic write) and opens the
// next. All work runs through one queue, so submissions, execution, flashblocks and seals
// never interleave.
import type { Common } from "@ethereumjs/common";
import type { BlockTransaction } from "../chain/op/blockTx.ts";
import { DEPOSIT_TX_TYPE } from "../chain/op/depositTx.ts";
import type { DevL1Config } from "../chain/op/l1Info.ts";
import type { BlockExecutor } from "../exec/blockExecutor.ts";
import { decodeRawTransaction } from "../exec/decodeTransaction.ts";
import { placeholderSender, withPlaceholderSender } from "../exec/impersonation.ts";
import { sealBuilder } from "../exec/vmInternals.ts";
import type { FlashblockUpdate, PendingTransaction, SealedUpdate } from "../pending/types.ts";
import {
  type DevAnswer,
  type DevRequest,
  type PoolContent,
  TxRejectedError,
} from "../services/transactions.ts";
import type { ChainStore } from "../store/chainStore.ts";
import { bytesToHex } from "../util/hex.ts";
import { includeInBlock, openBlock, type RecordedOpening } from "./blockAssembly.ts";
import { assembleFlashblock, type Building } from "./building.ts";
import { DepositQueue } from "./deposits.ts";
import { control, DevRequestError, devWritesOf, rebuildBlock } from "./devRequests.ts";
import { DevState, MAX_TIMESTAMP } from "./devState.ts";
import { epochNow, IntakeTimes } from "./intakeTimes.ts";
import { poolContent } from "./poolContent.ts";
import { TxPool } from "./txPool.ts";

export type SequencerOptions = {
  readonly blockTimeMs: number;
  readonly flashblockIntervalMs: number;
  /** The gas limit blocks move towards (geth's gas ceiling), within what each header may change. */
  readonly gasLimit: bigint;
  readonly coinbase: Uint8Array;
  /** OP-stack chains: the simulated L1 each block's L1-info deposit reports. */
  readonly l1?: DevL1Config;
};

export type SequencerLog = (
  level: "info" | "warn" | "error",
  msg: string,
  fields: Record<string, unknown>,
) => void;

export type SubmitResult = {
  readonly hash: string;
  readonly sender: Uint8Array;
  /** The transaction's own nonce (logged: a nonce gap is the usual reason it does not run). */
  readonly nonce: bigint;
  readonly nextNonce: bigint;
};

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
  private building: Building | undefined;
  /** The stream position of the last update (chainFollower.ts): it never goes back. */
  private position = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private executeScheduled = false;
  /** Told of each block right after its commit, before the next block opens (the publisher). */
  onBlockCommitted: ((number: number) => void) | undefined;
  /** The block number last refused a seal for its timestamp (canSeal): logged once. */
  private unsealable: number | undefined;
  /**
   * OP stack: user deposits waiting for the next block's start, and each block's opening ones
   * (blockAssembly.ts).
   */
  readonly deposits: DepositQueue;

  constructor(
    readonly executor: BlockExecutor,
    readonly store: ChainStore,
    readonly common: Common,
    readonly opts: SequencerOptions,
    private readonly out: (update: FlashblockUpdate | SealedUpdate) => void,
    readonly log: SequencerLog = () => {},
  ) {
    this.deposits = new DepositQueue(common, opts.l1);
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

  /** Runs `fn` after everything queued before it. */
  serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
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
          transactions: this.building?.transactions.length ?? 0,
        });
    });
    this.schedule();
  }

  /** A dev method's request (src/sequencer/devRequests.ts), between two executions. */
  control(request: DevRequest): Promise<DevAnswer> {
    return this.serial(() => control(this, request));
  }

  /** The block being built; throws when the sequencer is not running (devRequests.ts). */
  current(): Building {
    if (this.building === undefined) throw new Error("sequencer is not running");
    return this.building;
  }

  /** Makes `b` the block being built: a block rebuilt from its record, or reopened. */
  replace(b: Building): void {
    this.building = b;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.queue;
  }

  async submit(raw: Uint8Array): Promise<SubmitResult> {
    // Taken before the queue: time spent waiting behind a flashblock or a seal counts.
    const receivedAt = epochNow();
    // A fork fetches what the transaction names (sender, recipient, access list) before it
    // queues: an upstream round trip inside the queue would hold up flashblocks and seals.
    await this.executor.prefetchFor(raw, this.common);
    return this.serial(async () => {
      if (this.executor.op !== undefined) {
        // Reaches here only from flashnode_depositTransaction: eth_sendRawTransaction refuses 0x7e.
        if (raw[0] === DEPOSIT_TX_TYPE) return this.queueDeposit(raw);
        // Blob transactions do not exist on an OP-stack chain (op-geth's pool refuses them).
        if (raw[0] === 3) throw new TxRejectedError("transaction type not supported");
      }
      let tx = decodeRawTransaction(raw, this.common);
      // A placeholder signature (src/exec/impersonation.ts) stands for its sender only while
      // that sender is impersonated; otherwise it is refused as any bad signature is.
      const named = placeholderSender(tx);
      if (named !== undefined && this.dev.isImpersonated(named))
        tx = withPlaceholderSender(tx, this.common);
      const building = this.building;
      if (building === undefined) throw new TxRejectedError("sequencer is not running");
      let sender: Uint8Array;
      try {
        sender = tx.getSenderAddress().bytes;
      } catch (e) {
        throw new TxRejectedError(`invalid sender: ${(e as Error).message}`);
      }
      const account = await this.executor.currentAccount(sender);
      const sealedNonce = (await this.executor.sealedAccount(sender))?.nonce ?? 0n;
      const l1Cost = (await this.executor.op?.l1FeeFor(tx.serialize()))?.l1Fee;
      // The size limit is on the transaction itself; a blob sidecar is carried beside it.
      const size = tx.type === 3 ? tx.serialize().length : raw.length;
      const { hash } = this.pool.add(tx, size, {
        common: this.common,
        baseFee: building.base.baseFeePerGas,
        blockGasLimit: building.base.gasLimit,
        account: () => account,
        sealedNonce: () => sealedNonce,
        ...(l1Cost === undefined ? {} : { l1Cost }),
      });
      this.intake.set(hash, receivedAt);
      this.executeSoon();
      return {
        hash,
        sender,
        nonce: tx.nonce,
        nextNonce: this.pool.nextNonce(sender, account?.nonce ?? 0n),
      };
    });
  }

  /** A user deposit runs at the start of the next block, after its L1-info deposit. */
  private queueDeposit(raw: Uint8Array): SubmitResult {
    const tx = this.deposits.accept(raw);
    return { hash: bytesToHex(tx.hash()), sender: tx.from.bytes, nonce: 0n, nextNonce: 0n };
  }

  /** The pool as txpool_* show it (src/sequencer/poolContent.ts), between two executions. */
  poolContent(): Promise<PoolContent> {
    return this.serial(() =>
      poolContent(
        this.building,
        this.pool,
        async (sender) => (await this.executor.currentAccount(sender))?.nonce ?? 0n,
      ),
    );
  }

  /**
   * Transactions execute as they arrive, between flashblocks; a flashblock then publishes what
   * has run since the last one. Executing only at the flashblock's slot would put each
   * flashblock's execution time between its slot and its publication, so a busy flashblock
   * after a quiet one would come late: the cadence would follow the load.
   */
  private executeSoon(): void {
    if (this.executeScheduled) return;
    this.executeScheduled = true;
    setImmediate(() => {
      void this.serial(async () => {
        this.executeScheduled = false;
        const b = this.building;
        if (b === undefined || this.stopped) return;
        // Leave the next slot its time: what does not fit runs in the flashblock's own tick.
        const due = b.nextDue(this.opts.flashblockIntervalMs);
        const budget = Math.min(this.opts.flashblockIntervalMs / 2, due - performance.now() - 2);
        if (budget > 0) b.hold(await this.executeWaiting(b, budget));
      }).catch((e: unknown) =>
        this.log("error", "execution failed", { error: (e as Error).stack ?? String(e) }),
      );
    });
  }

  /** Next flashblock at its slot; a seal when the block time is up. Slots are kept on a grid. */
  private schedule(): void {
    if (this.stopped || this.building === undefined) return;
    const b = this.building;
    const due = b.nextDue(this.opts.flashblockIntervalMs);
    this.timer = setTimeout(
      () => {
        void this.serial(() => this.tick()).then(
          () => this.schedule(),
          (e: unknown) => {
            this.log("error", "flashblock failed", { error: (e as Error).stack ?? String(e) });
            this.schedule();
          },
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
    const b = this.building;
    if (b === undefined) return;
    const started = performance.now();
    const interval = this.opts.flashblockIntervalMs;
    b.advance();
    // Decided at the tick's start, before execution: how long this flashblock's execution
    // takes must not move the seal to an earlier slot.
    const last = forceSeal || started - b.openedAt + interval / 2 >= this.opts.blockTimeMs;
    // A forced seal takes everything waiting: a mined block holds what was sent before it.
    const added = b.takeUnpublished();
    added.push(...(await this.executeWaiting(b, forceSeal ? Number.POSITIVE_INFINITY : undefined)));
    const update = await this.flashblockOf(b, added, started);
    this.publishFlashblock(b, update);
    if (!last || !this.canSeal(b, forceSeal)) return;
    // The last flashblock of the block, then the seal: a block holds exactly what was published.
    const sealed = await this.seal(b);
    // The next block keeps the grid: its flashblock 1 is due one interval after this slot, so
    // the seal's time is not added to the next interval. Off the grid (a forced seal, or a tick
    // more than an interval late) it starts now.
    const slot = b.openedAt + b.index * interval;
    const onGrid = !forceSeal && performance.now() - slot < interval;
    const nextBlock = await this.open(undefined, onGrid ? slot : performance.now());
    this.building = nextBlock;
    // Flashblock 0 holds the block's deposits (OP stack: the L1-info deposit first), as on Base.
    const opening = nextBlock.transactions.slice();
    const next = await this.flashblockOf(nextBlock, opening, performance.now());
    this.store.recordFlashblock(
      nextBlock.base.number,
      0,
      nextBlock.base.timestamp,
      opening.map((t) => t.raw),
    );
    this.publish({ ...sealed, next });
  }

  /**
   * A block at the largest timestamp could have no child, and the sequencer always has a block
   * open: it stays open (serving pending) until an evm_revert goes back in time. evm_mine is
   * told why; the block time's seal is skipped, logged once.
   */
  private canSeal(b: Building, forceSeal: boolean): boolean {
    if (b.base.timestamp < MAX_TIMESTAMP) return true;
    const why = `block ${b.base.number} has the largest timestamp a dev block may have (${MAX_TIMESTAMP}): no block could follow it; evm_revert to an earlier snapshot`;
    if (forceSeal) throw new DevRequestError(why, -32000);
    if (this.unsealable !== b.base.number)
      this.log("warn", "not sealed", { block: b.base.number, reason: why });
    this.unsealable = b.base.number;
    return false;
  }

  async executeWaiting(b: Building, budgetMs?: number): Promise<PendingTransaction[]> {
    const nonces = new Map<string, bigint>();
    for (const sender of this.pool.senders()) {
      nonces.set(bytesToHex(sender), (await this.executor.currentAccount(sender))?.nonce ?? 0n);
    }
    const txs = this.pool.takeExecutable((sender) => nonces.get(bytesToHex(sender)) ?? 0n);
    const added: PendingTransaction[] = [];
    // Execution gets half the interval; what does not fit waits for the next flashblock, so a
    // burst cannot stretch the cadence.
    const deadline = performance.now() + (budgetMs ?? this.opts.flashblockIntervalMs / 2);
    for (const [i, tx] of txs.entries()) {
      if (performance.now() > deadline) {
        for (const rest of txs.slice(i)) this.pool.requeue(rest);
        break;
      }
      try {
        added.push(await this.include(b, tx));
      } catch (e) {
        const message = (e as Error).message;
        // Full block: the transaction waits for the next one.
        if (/remaining gas|blob gas limit/.test(message)) this.pool.requeue(tx);
        else
          this.log("warn", "transaction dropped at execution", {
            hash: bytesToHex(tx.hash()),
            reason: message,
          });
      }
    }
    return added;
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

  private async seal(b: Building): Promise<Omit<SealedUpdate, "next">> {
    // The builder would rebuild both tries from scratch; they are already complete here.
    const block = await sealBuilder(b.builder, {
      transactions: b.txTrie.root(),
      receipts: b.receiptTrie.root(),
    });
    const write = await this.executor.collectWrite(block, b.receipts);
    this.store.writeBlock({
      ...write,
      devWrites: devWritesOf(this.store.recordedFlashblocks(b.base.number)),
    });
    const sealedAt = epochNow();
    const number = Number(block.header.number);
    this.onBlockCommitted?.(number);
    // Intake times of what the pool dropped or replaced meanwhile.
    this.intake.prune((hash) => this.pool.has(hash));
    return { kind: "sealed", number, hash: block.hash(), sealedAt };
  }
}
