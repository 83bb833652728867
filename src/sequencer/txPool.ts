// Transactions waiting to run. Validation follows geth's txpool (core/txpool/validation.go) and
// its error texts; nonce gaps are queued, not dropped; the pool's size is bounded as geth's
// (POOL_LIMITS). They run in the order they arrived, each sender's by nonce (takeNext).
import type { Common } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import { hashOf, senderOf } from "../chain/txFacts.ts";
import type { AccountRecord } from "../chain/types.ts";
import { TxRejectedError } from "../services/transactions.ts";
import { bytesToHex, bytesToUnprefixedHex } from "../util/hex.ts";

/** geth's txMaxSize: 4 slots of 32 KiB. */
export const TX_MAX_SIZE = 4 * 32 * 1024;
/** Replacement needs +10% on fee cap and tip, as geth's default price bump. */
export const PRICE_BUMP_PERCENT = 10n;

export type PoolContext = {
  readonly common: Common;
  readonly baseFee: bigint;
  readonly blockGasLimit: bigint;
  readonly account: (address: Uint8Array) => AccountRecord | undefined;
  /** The sender's nonce at `latest`, to tell a nonce taken from there why it is too low. */
  readonly sealedNonce: (address: Uint8Array) => bigint;
  /** OP stack: the L1 data fee the transaction will pay on top (op-geth's pool counts it). */
  readonly l1Cost?: bigint;
};

/**
 * How many transactions the pool holds, as geth's legacy pool counts them (its defaults): a
 * sender's run of nonces from its nonce is executable ("pending"), what follows a gap is queued.
 */
export type PoolLimits = {
  /** Executable transactions a sender may always have, even when `globalSlots` are taken. */
  readonly accountSlots: number;
  /** Executable transactions of all senders, beyond each sender's `accountSlots`. */
  readonly globalSlots: number;
  /** Queued (nonce-gapped) transactions of one sender. */
  readonly accountQueue: number;
  /** Queued transactions of all senders. */
  readonly globalQueue: number;
};

/** geth's defaults (legacypool.DefaultConfig): the one place the pool's bounds are chosen. */
export const POOL_LIMITS: PoolLimits = {
  accountSlots: 16,
  globalSlots: 4096 + 1024,
  accountQueue: 64,
  globalQueue: 1024,
};

/** A waiting transaction: its place in the arrival order stays with it until it runs. */
export type PooledTx = {
  readonly tx: TypedTransaction;
  readonly hash: string;
  readonly sender: string;
  readonly nonce: bigint;
  readonly arrival: number;
  /** performance.now() before which it is not taken (it waits for a fork's upstream). */
  readonly notBefore?: number;
  /** Not taken again for this block (it did not fit); taken for the next. */
  readonly notInBlock?: number;
};

/** Why a transaction taken out of the pool goes back (putBack). */
export type PutBack = { readonly notBefore?: number; readonly notInBlock?: number };

/**
 * One sender's transactions by nonce, and its run: `run` transactions from `base` (its nonce as
 * last known) on are contiguous, the executable ones; the rest are queued.
 */
type SenderQueue = {
  readonly entries: Map<bigint, PooledTx>;
  base: bigint;
  run: number;
};

function feeCap(tx: TypedTransaction): bigint {
  return "maxFeePerGas" in tx ? (tx.maxFeePerGas as bigint) : (tx as { gasPrice: bigint }).gasPrice;
}

function tipCap(tx: TypedTransaction): bigint {
  return "maxPriorityFeePerGas" in tx
    ? (tx.maxPriorityFeePerGas as bigint)
    : (tx as { gasPrice: bigint }).gasPrice;
}

function cost(tx: TypedTransaction): bigint {
  let total = tx.gasLimit * feeCap(tx) + tx.value;
  if (tx.type === 3) {
    const t = tx as TypedTransaction & { maxFeePerBlobGas: bigint; blobVersionedHashes: unknown[] };
    total += t.maxFeePerBlobGas * 131072n * BigInt(t.blobVersionedHashes.length);
  }
  return total;
}

/** What to do when a nonce read at `latest` is already used by a pre-confirmed transaction. */
export function preconfirmedNonceHint(sender: Uint8Array): string {
  const address = bytesToHex(sender);
  return `a pre-confirmed transaction uses it; "latest" trails "pending" until the block seals: take the nonce at "pending" (cast: --nonce $(cast nonce --block pending ${address}))`;
}

export class TxPool {
  private readonly bySender = new Map<string, SenderQueue>();
  private readonly known = new Set<string>();
  private arrivals = 0;
  /** Arrival numbers below every waiting one, for transactions put back in front (restore). */
  private front = 0;
  /** Σ run over senders: the executable transactions. */
  private executable = 0;

  constructor(private readonly limits: PoolLimits = POOL_LIMITS) {}

  get size(): number {
    return this.known.size;
  }

  /** Validates and adds a signed transaction; returns its sender. */
  add(
    tx: TypedTransaction,
    serializedSize: number,
    ctx: PoolContext,
  ): { sender: Uint8Array; hash: string } {
    const hash = bytesToHex(hashOf(tx));
    if (this.known.has(hash)) throw new TxRejectedError("already known");
    if (serializedSize > TX_MAX_SIZE) {
      throw new TxRejectedError(
        `oversized data: transaction size ${serializedSize}, limit ${TX_MAX_SIZE}`,
      );
    }
    if (tx.type === 0 && !tx.supports(155)) {
      throw new TxRejectedError("only replay-protected (EIP-155) transactions allowed over RPC");
    }
    if (tx.gasLimit > ctx.blockGasLimit) throw new TxRejectedError("exceeds block gas limit");
    const maxTxGas = ctx.common.isActivatedEIP(7825) ? 2n ** 24n : undefined;
    if (maxTxGas !== undefined && tx.gasLimit > maxTxGas) {
      throw new TxRejectedError(
        `transaction gas limit too high (cap: ${maxTxGas}, tx: ${tx.gasLimit})`,
      );
    }
    if (tipCap(tx) > feeCap(tx)) {
      throw new TxRejectedError("max priority fee per gas higher than max fee per gas");
    }
    let senderBytes: Uint8Array;
    try {
      senderBytes = senderOf(tx).bytes;
    } catch (e) {
      throw new TxRejectedError(`invalid sender: ${(e as Error).message}`);
    }
    const intrinsic = tx.getIntrinsicGas();
    if (tx.gasLimit < intrinsic) {
      throw new TxRejectedError(
        `intrinsic gas too low: gas ${tx.gasLimit}, minimum needed ${intrinsic}`,
      );
    }
    if (
      tx.type === 4 &&
      ((tx as { authorizationList?: unknown[] }).authorizationList?.length ?? 0) === 0
    ) {
      throw new TxRejectedError("set code tx must have at least one authorization tuple");
    }
    if (feeCap(tx) < ctx.baseFee) {
      throw new TxRejectedError(
        `max fee per gas less than block base fee: address ${bytesToHex(senderBytes)}, maxFeePerGas: ${feeCap(tx)}, baseFee: ${ctx.baseFee}`,
      );
    }
    const account = ctx.account(senderBytes);
    const stateNonce = account?.nonce ?? 0n;
    if (tx.nonce < stateNonce) {
      const text = `nonce too low: next nonce ${stateNonce}, tx nonce ${tx.nonce}`;
      // Free at `latest`, taken in `pending`: the client read its nonce before the block sealed.
      throw new TxRejectedError(
        tx.nonce >= ctx.sealedNonce(senderBytes)
          ? `${text} (${preconfirmedNonceHint(senderBytes)})`
          : text,
      );
    }
    const balance = account?.balance ?? 0n;
    const txCost = cost(tx) + (ctx.l1Cost ?? 0n);
    if (balance < txCost) {
      throw new TxRejectedError(
        `insufficient funds for gas * price + value: balance ${balance}, tx cost ${txCost}, overshot ${txCost - balance}`,
      );
    }
    const sender = bytesToUnprefixedHex(senderBytes);
    const queue = this.queueOf(sender);
    this.rebase(queue, stateNonce);
    const existing = queue.entries.get(tx.nonce);
    if (existing !== undefined) {
      const bump = (v: bigint) => v + (v * PRICE_BUMP_PERCENT) / 100n;
      if (feeCap(tx) < bump(feeCap(existing.tx)) || tipCap(tx) < bump(tipCap(existing.tx))) {
        throw new TxRejectedError("replacement transaction underpriced");
      }
      this.known.delete(existing.hash);
    } else this.checkRoom(queue, tx.nonce);
    queue.entries.set(tx.nonce, {
      tx,
      hash,
      sender,
      nonce: tx.nonce,
      arrival: this.arrivals++,
    });
    this.known.add(hash);
    this.extendRun(queue);
    return { sender: senderBytes, hash };
  }

  /**
   * geth's bounds, with its errors, for a transaction that takes a new nonce: the pool's whole
   * size; a queued one within its sender's and everyone's queue; an executable one within the
   * executable slots, or its sender's guaranteed share of them.
   */
  private checkRoom(queue: SenderQueue, nonce: bigint): void {
    const l = this.limits;
    if (this.known.size >= l.globalSlots + l.globalQueue)
      throw new TxRejectedError("txpool is full");
    const queuedAll = this.known.size - this.executable;
    if (nonce > queue.base + BigInt(queue.run)) {
      const queued = queue.entries.size - queue.run;
      if (queued >= l.accountQueue)
        throw new TxRejectedError(`account limit exceeded: ${queued} queued transactions`);
      if (queuedAll >= l.globalQueue) throw new TxRejectedError("txpool is full");
    } else if (this.executable >= l.globalSlots && queue.run >= l.accountSlots)
      throw new TxRejectedError("txpool is full");
  }

  private queueOf(sender: string): SenderQueue {
    let queue = this.bySender.get(sender);
    if (queue === undefined) {
      queue = { entries: new Map(), base: 0n, run: 0 };
      this.bySender.set(sender, queue);
    }
    return queue;
  }

  /** The sender's nonce is `nonce` now: what is below it can never run, and is dropped. */
  private rebase(queue: SenderQueue, nonce: bigint): void {
    if (queue.base === nonce) return;
    for (const [n, e] of queue.entries)
      if (n < nonce) {
        queue.entries.delete(n);
        this.known.delete(e.hash);
      }
    queue.base = nonce;
    this.setRun(queue, 0);
    this.extendRun(queue);
  }

  private setRun(queue: SenderQueue, run: number): void {
    this.executable += run - queue.run;
    queue.run = run;
  }

  private extendRun(queue: SenderQueue): void {
    let run = queue.run;
    while (queue.entries.has(queue.base + BigInt(run))) run++;
    this.setRun(queue, run);
  }

  /** Forgets a sender whose queue is empty. */
  private tidy(sender: string, queue: SenderQueue): void {
    if (queue.entries.size === 0) {
      this.setRun(queue, 0);
      this.bySender.delete(sender);
    }
  }

  /** Senders with waiting transactions. */
  senders(): Uint8Array[] {
    return [...this.bySender.keys()].map((s) => Buffer.from(s, "hex"));
  }

  /**
   * Each sender's nonce as the block being built has it now (after something other than the
   * pool's own execution changed it: a dev method, a new block's deposits).
   */
  resync(nonceOf: (sender: Uint8Array) => bigint): void {
    for (const [sender, queue] of [...this.bySender]) {
      this.rebase(queue, nonceOf(Buffer.from(sender, "hex")));
      this.tidy(sender, queue);
    }
  }

  /**
   * Removes and returns the next transaction to run: of the senders whose next nonce is waiting
   * (and may be taken now, in block `block`), the one that arrived first. Its sender's nonce is
   * taken to move on; a transaction that did not run goes back (putBack) or is given up (dropped).
   */
  takeNext(now: number, block: number): PooledTx | undefined {
    let best: PooledTx | undefined;
    for (const queue of this.bySender.values()) {
      if (queue.run === 0) continue;
      const e = queue.entries.get(queue.base)!;
      if ((e.notBefore ?? now) > now || (e.notInBlock ?? -1) >= block) continue;
      if (best === undefined || e.arrival < best.arrival) best = e;
    }
    if (best === undefined) return undefined;
    const queue = this.bySender.get(best.sender)!;
    queue.entries.delete(best.nonce);
    this.known.delete(best.hash);
    queue.base++;
    this.setRun(queue, queue.run - 1);
    this.tidy(best.sender, queue);
    return best;
  }

  /** A transaction taken that did not run goes back, in its place in the arrival order. */
  putBack(entry: PooledTx, why: PutBack = {}): void {
    const queue = this.queueOf(entry.sender);
    queue.entries.set(entry.nonce, { ...entry, ...why });
    this.known.add(entry.hash);
    // Its nonce was not used: its sender's next is this one again.
    queue.base = entry.nonce;
    this.setRun(queue, 0);
    this.extendRun(queue);
  }

  /** A transaction taken that cannot run: its sender's nonce stays, later ones wait behind it. */
  dropped(entry: PooledTx): void {
    const queue = this.bySender.get(entry.sender);
    if (queue === undefined || queue.base !== entry.nonce + 1n) return;
    queue.base = entry.nonce;
    this.setRun(queue, 0);
    this.extendRun(queue);
  }

  /**
   * Puts transactions that ran before everything waiting back in front of it, in their order
   * (a block built again without them, no re-validation).
   */
  restore(txs: readonly TypedTransaction[]): void {
    this.front -= txs.length;
    for (const [i, tx] of txs.entries()) {
      const sender = bytesToUnprefixedHex(senderOf(tx).bytes);
      const queue = this.queueOf(sender);
      const hash = bytesToHex(hashOf(tx));
      const old = queue.entries.get(tx.nonce);
      if (old !== undefined) this.known.delete(old.hash);
      queue.entries.set(tx.nonce, { tx, hash, sender, nonce: tx.nonce, arrival: this.front + i });
      this.known.add(hash);
      // Below the nonce last known: the run starts again from it (a rebase corrects it).
      if (tx.nonce < queue.base) {
        queue.base = tx.nonce;
        this.setRun(queue, 0);
      }
      this.extendRun(queue);
    }
  }

  /** Every waiting transaction, by sender (first arrival first), each sender's in nonce order. */
  list(): Array<{ sender: Uint8Array; transactions: TypedTransaction[] }> {
    const out: Array<{ sender: Uint8Array; transactions: TypedTransaction[]; first: number }> = [];
    for (const [sender, queue] of this.bySender) {
      const entries = [...queue.entries.values()].sort((a, b) => (a.nonce < b.nonce ? -1 : 1));
      const first = Math.min(...entries.map((e) => e.arrival));
      out.push({
        sender: Buffer.from(sender, "hex"),
        transactions: entries.map((e) => e.tx),
        first,
      });
    }
    return out
      .sort((a, b) => a.first - b.first)
      .map(({ sender, transactions }) => ({ sender, transactions }));
  }

  /** Removes a waiting transaction (anvil_dropTransaction); whether it was there. */
  remove(hash: Uint8Array): boolean {
    const hex = bytesToHex(hash);
    if (!this.known.has(hex)) return false;
    for (const [sender, queue] of this.bySender)
      for (const [nonce, entry] of queue.entries)
        if (entry.hash === hex) {
          queue.entries.delete(nonce);
          this.known.delete(hex);
          if (nonce >= queue.base && nonce < queue.base + BigInt(queue.run))
            this.setRun(queue, Number(nonce - queue.base));
          this.tidy(sender, queue);
          return true;
        }
    return false;
  }

  has(hash: string): boolean {
    return this.known.has(hash);
  }

  /** The nonce after the sender's contiguous run of pooled transactions. */
  nextNonce(sender: Uint8Array, stateNonce: bigint): bigint {
    const queue = this.bySender.get(bytesToUnprefixedHex(sender));
    let n = stateNonce;
    while (queue?.entries.has(n)) n++;
    return n;
  }
}
