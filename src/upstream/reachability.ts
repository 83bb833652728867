// Whether an upstream answers, as its client sees it: down from a call that failed for want of an
// answer, up again at the next JSON answer. While it is down a cheap probe asks it now and then,
// so a node whose reads are all cached still learns that it came back.
import type { UpstreamReachability } from "./calls.ts";

/** How often a down upstream is probed (eth_chainId), while nothing else is asked of it. */
export const PROBE_EVERY_MS = 500;

export class Reachability {
  private down: { since: number; reason: string } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private probing = false;
  private closed = false;

  constructor(
    /** Asks the upstream something cheap; its answer (or failure) reaches answered()/failed(). */
    private readonly probe: () => Promise<unknown>,
    private readonly everyMs = PROBE_EVERY_MS,
  ) {}

  state(): UpstreamReachability {
    const d = this.down;
    return d === undefined ? { reachable: true } : { reachable: false, ...d };
  }

  /** A JSON answer arrived: the upstream is up. Whether it was down until now. */
  answered(): boolean {
    if (this.down === undefined) return false;
    this.down = undefined;
    this.stopProbing();
    return true;
  }

  /** A call failed for want of an answer. */
  failed(reason: string): void {
    if (this.closed) return;
    if (this.down !== undefined) {
      this.down.reason = reason;
      return;
    }
    this.down = { since: Date.now(), reason };
    // Unref'd: probing never keeps a process alive on its own.
    this.timer = setInterval(() => this.probeOnce(), this.everyMs);
    this.timer.unref();
  }

  close(): void {
    this.closed = true;
    this.stopProbing();
  }

  private probeOnce(): void {
    if (this.probing || this.closed) return;
    this.probing = true;
    void this.probe()
      .catch(() => undefined)
      .finally(() => {
        this.probing = false;
      });
  }

  private stopProbing(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}
