// Running the pool's transactions onto blocks (in the sequencer's queue): onto the block being
// built, within a time budget (what a flashblock publishes), or, with automine, each onto a block
// of its own sealed as soon as its flashblock is built.
import type { TypedTransaction } from "@ethereumjs/tx";
import type { BlockExecutor } from "../exec/blockExecutor.ts";
import type { FlashblockUpdate, PendingTransaction, SealedUpdate } from "../pending/types.ts";
import { UpstreamError } from "../upstream/errors.ts";
import { bytesToHex } from "../util/hex.ts";
import type { Building } from "./building.ts";
import type { TxPool } from "./txPool.ts";

/** What the execution loops use of the sequencer (sequencer.ts passes itself). */
export type ExecutionParts = {
  readonly pool: TxPool;
  readonly executor: BlockExecutor;
  readonly opts: { readonly flashblockIntervalMs: number };
  readonly log: (level: "warn", msg: string, fields: Record<string, unknown>) => void;
  current(): Building;
  include(b: Building, tx: TypedTransaction): Promise<PendingTransaction>;
  flashblockOf(
    b: Building,
    added: PendingTransaction[],
    started: number,
  ): Promise<FlashblockUpdate>;
  /** Whether `b` may be sealed (not at the largest timestamp: sequencer.ts canSeal). */
  canSeal(b: Building): boolean;
  /** Seals `b` and opens the next block; the seal to publish. */
  sealAndOpen(b: Building, offGrid: boolean): Promise<SealedUpdate>;
  publish(update: FlashblockUpdate | SealedUpdate): void;
  publishFlashblock(b: Building, update: FlashblockUpdate): void;
};

/** The pool's executable transactions, taken out of it (each sender's run from its nonce). */
export async function takeExecutable(seq: ExecutionParts): Promise<TypedTransaction[]> {
  const nonces = new Map<string, bigint>();
  for (const sender of seq.pool.senders()) {
    nonces.set(bytesToHex(sender), (await seq.executor.currentAccount(sender))?.nonce ?? 0n);
  }
  return seq.pool.takeExecutable((sender) => nonces.get(bytesToHex(sender)) ?? 0n);
}

/** How long a transaction whose run needed a fork's upstream that failed waits to run again. */
export const UPSTREAM_RETRY_MS = 1_000;

function dropped(seq: ExecutionParts, tx: TypedTransaction, reason: string): void {
  seq.log("warn", "transaction dropped at execution", { hash: bytesToHex(tx.hash()), reason });
}

/** Transactions already said to wait for the upstream (said once each). */
const toldWaiting = new WeakSet<TypedTransaction>();

/**
 * Senders whose transaction waits for a fork's upstream: their later ones wait with it (they
 * could not run before it).
 */
class Held {
  private readonly until = new Map<string, number>();

  /** If `tx`'s sender is held, puts it back in the pool; whether it did. */
  holdBack(seq: ExecutionParts, tx: TypedTransaction): boolean {
    const until = this.until.get(bytesToHex(tx.getSenderAddress().bytes));
    if (until === undefined) return false;
    seq.pool.requeue(tx, until);
    return true;
  }

  /**
   * A transaction that could not run: one whose run needed a fork's upstream that failed is not
   * at fault and waits in the pool to run again, its sender's later ones with it (the block is as
   * it was: includeInBlock); one the block refused for room waits for the next flashblock or
   * block; any other is dropped.
   */
  notRun(seq: ExecutionParts, tx: TypedTransaction, e: unknown): void {
    const message = (e as Error).message;
    if (e instanceof UpstreamError) {
      if (!toldWaiting.has(tx))
        seq.log("warn", "transaction waits for the upstream", {
          hash: bytesToHex(tx.hash()),
          reason: message,
        });
      toldWaiting.add(tx);
      const until = performance.now() + UPSTREAM_RETRY_MS;
      this.until.set(bytesToHex(tx.getSenderAddress().bytes), until);
      seq.pool.requeue(tx, until);
    } else if (/remaining gas|blob gas limit/.test(message)) seq.pool.requeue(tx);
    else dropped(seq, tx, message);
  }
}

/**
 * Executes what the pool can run onto `b`, within `budgetMs` (default: half a flashblock
 * interval, so a burst cannot stretch the cadence); what does not fit waits for the next
 * flashblock, or (a full block) the next block.
 */
export async function executeWaiting(
  seq: ExecutionParts,
  b: Building,
  budgetMs?: number,
): Promise<PendingTransaction[]> {
  const txs = await takeExecutable(seq);
  const added: PendingTransaction[] = [];
  const held = new Held();
  const deadline = performance.now() + (budgetMs ?? seq.opts.flashblockIntervalMs / 2);
  for (const [i, tx] of txs.entries()) {
    if (performance.now() > deadline) {
      for (const rest of txs.slice(i)) if (!held.holdBack(seq, rest)) seq.pool.requeue(rest);
      break;
    }
    if (held.holdBack(seq, tx)) continue;
    try {
      added.push(await seq.include(b, tx));
    } catch (e) {
      held.notRun(seq, tx, e);
    }
  }
  return added;
}

/**
 * Automine: every executable transaction gets a block of its own, sealed as soon as its
 * flashblock is built. The flashblock and the seal are published together, after the commit, so
 * no reader sees the transaction pre-confirmed while `latest` does not hold it.
 */
export async function automineWaiting(seq: ExecutionParts): Promise<void> {
  const held = new Held();
  for (let txs = await takeExecutable(seq); txs.length > 0; txs = await takeExecutable(seq)) {
    for (const [i, tx] of txs.entries()) {
      if (held.holdBack(seq, tx)) continue;
      const b = seq.current();
      const started = performance.now();
      let added: PendingTransaction;
      try {
        added = await seq.include(b, tx);
      } catch (e) {
        held.notRun(seq, tx, e);
        continue;
      }
      b.advance();
      const update = await seq.flashblockOf(b, [added], started);
      if (!seq.canSeal(b)) {
        // The last second (devState.ts): pre-confirmed, never sealed; the rest waits.
        seq.publishFlashblock(b, update);
        for (const rest of txs.slice(i + 1)) seq.pool.requeue(rest);
        return;
      }
      let sealed: SealedUpdate;
      try {
        sealed = await seq.sealAndOpen(b, true);
      } catch (e) {
        // The rest waits in the pool; this one, unrecorded, goes back there when the block is
        // rebuilt (recovery.ts).
        for (const rest of txs.slice(i + 1)) seq.pool.requeue(rest);
        throw e;
      }
      seq.publish(update);
      seq.publish(sealed);
    }
  }
}
