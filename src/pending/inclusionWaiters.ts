// Promises that settle when a flashblock carries a transaction, or with false at a deadline:
// what eth_sendRawTransactionSync and receipt waits block on.
import { bytesToUnprefixedHex } from "../util/hex.ts";

export class InclusionWaiters {
  private readonly waiters = new Map<string, Set<() => void>>();

  wait(hash: Uint8Array, timeoutMs: number): Promise<boolean> {
    const key = bytesToUnprefixedHex(hash);
    return new Promise((resolve) => {
      let set = this.waiters.get(key);
      if (set === undefined) {
        set = new Set();
        this.waiters.set(key, set);
      }
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        set.delete(wake);
        if (set.size === 0) this.waiters.delete(key);
        resolve(false);
      }, timeoutMs);
      set.add(wake);
    });
  }

  /** Wakes whoever waits for this transaction (a flashblock carried it). */
  release(hash: Uint8Array): void {
    if (this.waiters.size === 0) return;
    const key = bytesToUnprefixedHex(hash);
    const set = this.waiters.get(key);
    if (set === undefined) return;
    this.waiters.delete(key);
    for (const wake of set) wake();
  }
}
