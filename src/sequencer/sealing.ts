// Sealing the block being built: its block from the builder (the tries are complete already), its
// write read off the executor, one commit to the archive; and, on a forked chain, what the seal
// reads of the upstream (the values the block's writes replace), fetched off the sequencer's queue
// while the block is built, so a slow or absent upstream holds up the seal, never the queue.
import type { BlockExecutor } from "../exec/blockExecutor.ts";
import { sealBuilder } from "../exec/vmInternals.ts";
import type { ChainStore } from "../store/chainStore.ts";
import type { Building } from "./building.ts";
import { epochNow } from "./intakeTimes.ts";
import { devWritesOf } from "./rebuild.ts";
import type { Unannounced } from "./recovery.ts";

export type SealParts = {
  readonly executor: BlockExecutor;
  readonly store: ChainStore;
};

/**
 * Commits `b` to the archive in one write; the seal to announce. `committed` is told at once, so
 * that a failure after the commit leaves the seal to announce, never the block to seal again.
 */
export async function commitBlock(
  seq: SealParts,
  b: Building,
  committed: (sealed: Unannounced) => void,
): Promise<Unannounced> {
  const block = await sealBuilder(b.builder, {
    transactions: b.txTrie.root(),
    receipts: b.receiptTrie.root(),
  });
  const write = await seq.executor.collectWrite(block, b.receipts);
  seq.store.writeBlock({
    ...write,
    devWrites: devWritesOf(seq.store.recordedFlashblocks(b.base.number)),
  });
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
