// Running the pool's transactions onto blocks (in the sequencer's queue), one at a time in the
// pool's order (arrival, each sender's by nonce): onto the block being built, where the flashblock
// ticks publish what ran; or, with automine, each onto a block of its own sealed as soon as its
// flashblock is built. A transaction that cannot run now goes back to the pool in its place.
import type { BlockExecutor } from "../exec/blockExecutor.ts";
import type { FlashblockUpdate, PendingTransaction, SealedUpdate } from "../pending/types.ts";
import { UpstreamError } from "../upstream/errors.ts";
import { bytesToHex } from "../util/hex.ts";
import type { Building } from "./building.ts";
import type { PooledTx, TxPool } from "./txPool.ts";

/** What the execution loops use of the sequencer (sequencer.ts passes itself). */
export type ExecutionParts = {
  readonly pool: TxPool;
  readonly executor: BlockExecutor;
  readonly log: (level: "warn", msg: string, fields: Record<string, unknown>) => void;
  current(): Building;
  include(b: Building, tx: PooledTx["tx"]): Promise<PendingTransaction>;
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

/** How long a transaction whose run needed a fork's upstream that failed waits to run again. */
export const UPSTREAM_RETRY_MS = 1_000;

/**
 * Tells the pool each waiting sender's nonce as the block being built has it: after anything
 * but the pool's own execution may have changed one (a dev method, a block's deposits).
 */
export async function resyncNonces(seq: Pick<ExecutionParts, "pool" | "executor">): Promise<void> {
  const nonces = new Map<string, bigint>();
  for (const sender of seq.pool.senders())
    nonces.set(bytesToHex(sender), (await seq.executor.currentAccount(sender))?.nonce ?? 0n);
  seq.pool.resync((sender) => nonces.get(bytesToHex(sender)) ?? 0n);
}

/** Transactions already said to wait for the upstream (said once each). */
const toldWaiting = new WeakSet<PooledTx["tx"]>();

/**
 * A transaction that could not run: one whose run needed a fork's upstream that failed is not at
 * fault and waits in the pool to run again, its sender's later ones behind it (the block is as it
 * was: includeInBlock); one the block refused for room waits for the next block; any other is
 * dropped, and its sender's later ones wait for its nonce.
 */
function notRun(seq: ExecutionParts, entry: PooledTx, block: number, e: unknown): void {
  const message = (e as Error).message;
  const hash = entry.hash;
  if (e instanceof UpstreamError) {
    if (!toldWaiting.has(entry.tx))
      seq.log("warn", "transaction waits for the upstream", { hash, reason: message });
    toldWaiting.add(entry.tx);
    seq.pool.putBack(entry, { notBefore: performance.now() + UPSTREAM_RETRY_MS });
  } else if (/remaining gas|blob gas limit/.test(message))
    seq.pool.putBack(entry, { notInBlock: block });
  else {
    seq.log("warn", "transaction dropped at execution", { hash, reason: message });
    seq.pool.dropped(entry);
  }
}

/**
 * Runs the pool's next transaction onto `b`: what it added to the block, "none" when nothing
 * waiting can run now, "not run" when the one taken could not run.
 */
export async function executeNext(
  seq: ExecutionParts,
  b: Building,
): Promise<PendingTransaction | "none" | "not run"> {
  const entry = seq.pool.takeNext(performance.now(), b.base.number);
  if (entry === undefined) return "none";
  try {
    return await seq.include(b, entry.tx);
  } catch (e) {
    notRun(seq, entry, b.base.number, e);
    return "not run";
  }
}

/**
 * The background's step: the pool's next transaction onto the block being built, held for the
 * next flashblock (`resync`: the senders' nonces read again first); whether more may follow.
 */
export async function executeOneWaiting(seq: ExecutionParts, resync: boolean): Promise<boolean> {
  if (resync) await resyncNonces(seq);
  const b = seq.current();
  const ran = await executeNext(seq, b);
  if (ran === "none") return false;
  if (ran !== "not run") b.hold([ran]);
  return true;
}

/** Executes everything the pool can run now onto `b` (a forced seal, a dev method's flush). */
export async function executeWaiting(
  seq: ExecutionParts,
  b: Building,
): Promise<PendingTransaction[]> {
  await resyncNonces(seq);
  const added: PendingTransaction[] = [];
  for (let r = await executeNext(seq, b); r !== "none"; r = await executeNext(seq, b))
    if (r !== "not run") added.push(r);
  return added;
}

/**
 * Automine: every executable transaction gets a block of its own, sealed as soon as its
 * flashblock is built. The flashblock and the seal are published together, after the commit, so
 * no reader sees the transaction pre-confirmed while `latest` does not hold it.
 */
export async function automineWaiting(seq: ExecutionParts): Promise<void> {
  await resyncNonces(seq);
  for (;;) {
    const b = seq.current();
    const started = performance.now();
    const added = await executeNext(seq, b);
    if (added === "none") return;
    if (added === "not run") continue;
    b.advance();
    const update = await seq.flashblockOf(b, [added], started);
    if (!seq.canSeal(b)) {
      // The last second (devState.ts): pre-confirmed, never sealed; the rest waits.
      seq.publishFlashblock(b, update);
      return;
    }
    // A failure leaves the rest in the pool; this one, unrecorded, goes back there when the
    // block is rebuilt (recovery.ts).
    const sealed = await seq.sealAndOpen(b, true);
    seq.publish(update);
    seq.publish(sealed);
  }
}
