/** Promises that settle when the sealed head reaches a block number, or false at a deadline. */
export class SealWaiters {
  private readonly waiting = new Set<{ readonly number: number; wake(ok: boolean): void }>();

  constructor(private readonly head: () => number | undefined) {}

  wait(number: number, timeoutMs: number): Promise<boolean> {
    if ((this.head() ?? -1) >= number) return Promise.resolve(true);
    if (timeoutMs <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const entry = {
        number,
        wake: (ok: boolean) => {
          clearTimeout(timer);
          this.waiting.delete(entry);
          resolve(ok);
        },
      };
      const timer = setTimeout(() => entry.wake(false), timeoutMs);
      this.waiting.add(entry);
    });
  }

  /** Called after each seal, once the block is readable. */
  sealed(head: number): void {
    for (const entry of this.waiting) if (entry.number <= head) entry.wake(true);
  }
}
