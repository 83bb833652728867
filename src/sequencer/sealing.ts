// Sealing the block being built: its block from the builder (the tries are complete already), its
// write read off the executor, one commit to the archive; and, on a forked chain, what the seal
// reads of the upstream (the values the block's writes replace), fetched off the sequencer's queue
// while the block is built, so a slow or absent upstream holds up the seal, never the queue.
import type { BlockExecutor } from "../exec/blockExecutor.ts";
import { sealBuilder } from "../exec/vmInternals.ts";
import type { FlashblockUpdate, PendingTransaction } from "../pending/types.ts";
import type { ChainStore, NextOpening } from "../store/archive.ts";
import type { RecordedOpening } from "./blockAssembly.ts";
import type { Building } from "./building.ts";
import { DevRequestError } from "./devHost.ts";
import { MAX_TIMESTAMP } from "./devState.ts";
import { epochNow } from "./intakeTimes.ts";
import { devWritesOf } from "./rebuild.ts";
import type { Unannounced } from "./recovery.ts";

export type SealParts = {
  readonly executor: BlockExecutor;
  readonly store: ChainStore;
};

/** What opening the next block uses of the sequencer. */
export type OpenParts = SealParts & {
  open(recorded: RecordedOpening | undefined, openedAt: number): Promise<Building>;
  replace(b: Building): void;
  flashblockOf(
    b: Building,
    added: PendingTransaction[],
    started: number,
  ): Promise<FlashblockUpdate>;
};

/**
 * Opens the block after the head and makes it the block being built, its flashblock 0 recorded
 * (`recorded`: as the seal recorded it, in the block's own write); flashblock 0 to publish.
 */
export async function openNextBlock(
  seq: OpenParts,
  openedAt: number,
  recorded?: NextOpening,
): Promise<FlashblockUpdate> {
  const b = await seq.open(
    recorded === undefined
      ? undefined
      : { timestamp: recorded.timestamp, deposits: recorded.transactions },
    openedAt,
  );
  seq.replace(b);
  // Flashblock 0 holds the block's deposits (OP stack: the L1-info deposit first), as on Base.
  const opening = b.transactions.slice();
  const next = await seq.flashblockOf(b, opening, performance.now());
  if (recorded === undefined)
    seq.store.recordFlashblock(
      b.base.number,
      0,
      b.base.timestamp,
      opening.map((t) => t.raw),
    );
  return next;
}

/**
 * Commits `b` to the archive in one write, with the next block's opening (`next`) recorded in it;
 * the seal to announce. `committed` is told at once, so that a failure after the commit leaves
 * the seal to announce, never the block to seal again.
 */
export async function commitBlock(
  seq: SealParts,
  b: Building,
  committed: (sealed: Unannounced) => void,
  next?: NextOpening,
): Promise<Unannounced> {
  const block = await sealBuilder(b.builder, {
    transactions: b.txTrie.root(),
    receipts: b.receiptTrie.root(),
  });
  const write = await seq.executor.collectWrite(block, b.receipts);
  // Answered once committed; the flush to disk follows on lmdb's thread (docs/dev.md: what a
  // crash can lose).
  await seq.store.writeBlockSoon(
    { ...write, devWrites: devWritesOf(seq.store.recordedFlashblocks(b.base.number)) },
    next,
  );
  const sealed = {
    kind: "sealed",
    number: Number(block.header.number),
    hash: block.hash(),
    sealedAt: epochNow(),
  } as const;
  committed(sealed);
  return sealed;
}

/** What the seal of the block being built reads of a fork's upstream, fetched one batch at a time. */
export class SealReads {
  private fetching: Promise<void> | undefined;

  constructor(
    private readonly executor: BlockExecutor,
    /** Told why a fetch failed (the next tick fetches again). */
    private readonly onFailure: (message: string) => void,
  ) {}

  /** Whether all of it is at hand (always, off a fork). */
  get ready(): boolean {
    return this.executor.sealReadsMissing() === undefined;
  }

  /** Fetches what is missing, unless a fetch is under way already; not waited for. */
  fetchSoon(): void {
    if (this.fetching !== undefined || this.ready) return;
    this.fetching = this.executor
      .fetchSealReads()
      .catch((e: unknown) => this.onFailure((e as Error).message))
      .finally(() => {
        this.fetching = undefined;
      });
  }
}

/**
 * A block at the largest timestamp could have no child, and the sequencer always has a block
 * open: it stays open (serving pending) until an evm_revert goes back in time. evm_mine is told
 * why; the block time's seal is skipped, logged once.
 */
export class TimestampLimit {
  /** The block number last refused a seal for its timestamp: logged once. */
  private unsealable: number | undefined;

  canSeal(
    b: Building,
    forceSeal: boolean,
    log: (level: "warn", msg: string, fields: Record<string, unknown>) => void,
  ): boolean {
    if (b.base.timestamp < MAX_TIMESTAMP) return true;
    const why = `block ${b.base.number} has the largest timestamp a dev block may have (${MAX_TIMESTAMP}): no block could follow it; evm_revert to an earlier snapshot`;
    if (forceSeal) throw new DevRequestError(why, -32000);
    if (this.unsealable !== b.base.number)
      log("warn", "not sealed", { block: b.base.number, reason: why });
    this.unsealable = b.base.number;
    return false;
  }
}
