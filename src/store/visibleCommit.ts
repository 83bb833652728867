// When a write committed on lmdb's write thread becomes visible. With overlapping sync, LMDB makes
// a commit visible to every reader first and flushes it to disk after, on the thread that
// committed; lmdb-js resolves the commit's promise only once that flush is done (a millisecond to
// several on a virtual disk). A sealed block is answered once visible (docs/dev.md, "What a crash
// can lose"), so its writer reads back a token the write put, instead of waiting for the flush.

/** How long the writer sleeps between two look-ups of its token (ms). */
const LOOK_EVERY_MS = 0.1;

const sleeper = new Int32Array(new SharedArrayBuffer(4));

export type VisibleParts<T> = {
  /** lmdb's promise for the commit: settles once the write is flushed, or has failed. */
  readonly committed: Promise<T>;
  /** Resolves with the write's result once its callback ran (inside the write transaction). */
  readonly ran: Promise<T>;
  /** Whether the write's token reads back (a fresh read snapshot each time). */
  readonly visible: () => boolean;
};

/**
 * The write's result once the write is visible to every reader, or once lmdb's promise settles
 * (then as it settles: a failed commit rejects). Until the callback ran, nothing is looked up (the
 * write thread has not begun the transaction); after, the token is looked up every
 * LOOK_EVERY_MS, sleeping in between so the write thread has the CPU to commit.
 */
export async function untilVisible<T>(parts: VisibleParts<T>): Promise<T> {
  let settled = false;
  const committed = parts.committed.finally(() => {
    settled = true;
  });
  // Returned before the flush: the caller observes how lmdb's promise settles.
  committed.catch(() => undefined);
  const result = await Promise.race([parts.ran, committed]);
  while (!settled) {
    if (parts.visible()) return result;
    // One turn of the event loop (lmdb's settlement gets through), then a short sleep.
    await new Promise((resolve) => setImmediate(resolve));
    Atomics.wait(sleeper, 0, 0, LOOK_EVERY_MS);
  }
  return committed;
}

/**
 * The flushes of writes answered once visible: close() waits for those under way, and a flush
 * that fails after its write was answered is not lost — the next write throws it, or close().
 */
export class SoonFlushes {
  private readonly underWay = new Set<Promise<unknown>>();
  private failed: Error | undefined;

  /** Follows `committed` (lmdb's promise); a failure once `answered()` is kept for later. */
  watch(committed: Promise<unknown>, answered: () => boolean): void {
    this.underWay.add(committed);
    committed.then(
      () => this.underWay.delete(committed),
      (e: unknown) => {
        this.underWay.delete(committed);
        // Before the answer, the write itself rejects with it (untilVisible).
        if (answered()) this.failed ??= e instanceof Error ? e : new Error(String(e));
      },
    );
  }

  /** Throws a failed flush not yet thrown. */
  throwFailed(): void {
    const failed = this.failed;
    if (failed === undefined) return;
    this.failed = undefined;
    throw failed;
  }

  /** Once every flush under way has settled; throws a failed one not yet thrown. */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.underWay]);
    this.throwFailed();
  }
}
