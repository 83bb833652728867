// What the sequencer does after a step on the block being built failed midway (a forked chain's
// upstream failing inside a transaction, or while the block seals): the block is never left
// half-done. It is built again, quietly, from its recorded flashblocks (what readers were shown),
// and what ran but was not recorded yet goes back to the pool; a block committed whose seal was
// not announced gets its next block opened and its seal published. Until that succeeds the
// sequencer says why it is stalled (readiness), and every tick tries again.
import type { TypedTransaction } from "@ethereumjs/tx";
import { decodeBlockTransaction } from "../chain/op/blockTx.ts";
import { isDepositTx } from "../chain/op/depositTx.ts";
import { withPlaceholderSender } from "../exec/impersonation.ts";
import type { SealedUpdate } from "../pending/types.ts";
import type { FlashblockRecord } from "../store/archive.ts";
import { bytesToHex } from "../util/hex.ts";
import type { Building } from "./building.ts";
import { type DevHost, DevRequestError } from "./devHost.ts";
import { rebuildBlock } from "./rebuild.ts";

/**
 * The transactions of `b` no flashblock record holds: executed, but neither recorded nor
 * published (a flashblock that failed before its record, an automined block that failed to seal).
 */
export function unrecordedTransactions(
  seq: Pick<DevHost, "common">,
  b: Building,
  records: readonly FlashblockRecord[],
): TypedTransaction[] {
  const recorded = new Set<string>();
  for (const r of records) for (const raw of r.transactions) recorded.add(bytesToHex(raw));
  const out: TypedTransaction[] = [];
  for (const t of b.transactions) {
    if (recorded.has(bytesToHex(t.raw))) continue;
    const tx = decodeBlockTransaction(t.raw, seq.common);
    // Deposits come from the block's opening (recorded with flashblock 0), never from the pool.
    if (!isDepositTx(tx)) out.push(withPlaceholderSender(tx, seq.common));
  }
  return out;
}

/**
 * The block being built again from its record, as readers were shown it: its builder given up
 * (every checkpoint a throw left open unwound), what was not recorded back in the pool.
 */
export async function rebuildDamaged(seq: DevHost): Promise<void> {
  const old = seq.current();
  const records = seq.store.recordedFlashblocks(old.base.number);
  seq.pool.restore(unrecordedTransactions(seq, old, records));
  await seq.executor.abandonBuild();
  await rebuildBlock(seq, records, { quiet: { payloadId: old.payloadId, index: old.index } });
}

/** A seal committed to the archive and not yet published (its next block did not open). */
export type Unannounced = Omit<SealedUpdate, "next">;

type Log = (level: "info" | "error", msg: string, fields: Record<string, unknown>) => void;

/** What recovering asks of the sequencer. */
export type RecoveryHooks = {
  /** The number of the block being built (for the messages). */
  readonly block: () => number;
  /** Whether the sequencer is stopping: what fails then (a fork's reads end first) is not told. */
  readonly stopping: () => boolean;
  /** Opens the block after a committed one and publishes the seal with its flashblock 0. */
  readonly announce: (sealed: Unannounced) => Promise<void>;
  /** Builds the block being built again from its record (rebuildDamaged). */
  readonly rebuild: () => Promise<void>;
};

/**
 * Every step on the block being built runs through guard(): a step that fails midway marks the
 * block damaged, and the next step first repairs it (announces a committed seal, or rebuilds the
 * block). Meanwhile it keeps why the chain does not move, for /readyz.
 */
export class Recovery {
  private damagedBlock = false;
  private unannounced: Unannounced | undefined;
  /** The last failed step, until a step succeeds. */
  private failure: { readonly message: string; readonly since: number } | undefined;
  /** Since when the block's seal waits for what it reads of the upstream, and why it failed. */
  private sealWait: { readonly since: number; error: string | undefined } | undefined;

  constructor(
    private readonly log: Log,
    private readonly hooks: RecoveryHooks,
  ) {}

  /** Whether the block being built waits for a repair (the next step's). */
  get damaged(): boolean {
    return this.damagedBlock || this.unannounced !== undefined;
  }

  /**
   * Runs `step` once the block being built is whole again; a failure of the step marks it
   * damaged. A dev request's refusal (DevRequestError) changes nothing.
   */
  async guard<T>(step: () => Promise<T>): Promise<T> {
    await this.repair();
    try {
      const out = await step();
      this.succeeded();
      return out;
    } catch (e) {
      if (!(e instanceof DevRequestError)) {
        this.damagedBlock = true;
        this.failed(e);
      }
      throw e;
    }
  }

  private async repair(): Promise<void> {
    try {
      const sealed = this.unannounced;
      if (sealed !== undefined) {
        await this.hooks.announce(sealed);
        this.unannounced = undefined;
        this.damagedBlock = false;
      }
      if (this.damagedBlock) {
        await this.hooks.rebuild();
        this.damagedBlock = false;
      }
    } catch (e) {
      this.failed(e);
      throw e;
    }
  }

  /** A block was committed: from here a failure leaves its seal to announce. */
  committed(sealed: Unannounced): void {
    this.unannounced = sealed;
    this.sealWait = undefined;
  }

  /** The committed block's seal is out (with the next block's flashblock 0). */
  announced(): void {
    this.unannounced = undefined;
  }

  /** The block's seal waits for what it reads of the upstream (`error`: why that read failed). */
  sealWaiting(error?: string): void {
    this.sealWait ??= { since: Date.now(), error: undefined };
    if (error !== undefined) this.sealWait.error = error;
  }

  private failed(e: unknown): void {
    if (this.hooks.stopping()) return;
    const message = e instanceof Error ? e.message : String(e);
    if (this.failure?.message !== message)
      this.log("error", "block building failed; retrying", {
        block: this.hooks.block(),
        error: e instanceof Error ? (e.stack ?? message) : message,
      });
    this.failure = { message, since: this.failure?.since ?? Date.now() };
  }

  private succeeded(): void {
    if (this.failure === undefined) return;
    this.log("info", "block building recovered", {
      block: this.hooks.block(),
      stalledMs: Date.now() - this.failure.since,
    });
    this.failure = undefined;
  }

  /**
   * Why the chain does not move (a failed step, a seal waiting longer than `graceMs`), if so;
   * `upstreamSaid`: the upstream's own reason is given apart (it is unreachable).
   */
  reason(graceMs: number, upstreamSaid = false): string | undefined {
    const block = this.hooks.block();
    if (this.failure !== undefined)
      return `block ${block} is stalled: ${this.failure.message} (retrying)`;
    const wait = this.sealWait;
    if (wait === undefined || Date.now() - wait.since <= graceMs) return undefined;
    const waited = Math.round((Date.now() - wait.since) / 1000);
    const why = wait.error === undefined || upstreamSaid ? "" : ` (${wait.error})`;
    return `block ${block} not sealed for ${waited} s: waiting for the upstream${why}`;
  }
}
