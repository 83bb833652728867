// Transactions waiting for the next flashblock. Validation follows geth's txpool
// (core/txpool/validation.go) and its error texts; nonce gaps are queued, not dropped.
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

type Entry = {
  readonly tx: TypedTransaction;
  readonly hash: string;
  readonly sender: string;
  readonly arrival: number;
  /** performance.now() before which it is not taken (it waits for a fork's upstream). */
  readonly notBefore?: number;
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
  private readonly bySender = new Map<string, Map<bigint, Entry>>();
  private readonly known = new Set<string>();
  private arrivals = 0;

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
    let queue = this.bySender.get(sender);
    if (queue === undefined) {
      queue = new Map();
      this.bySender.set(sender, queue);
    }
    const existing = queue.get(tx.nonce);
    if (existing !== undefined) {
      const bump = (v: bigint) => v + (v * PRICE_BUMP_PERCENT) / 100n;
      if (feeCap(tx) < bump(feeCap(existing.tx)) || tipCap(tx) < bump(tipCap(existing.tx))) {
        throw new TxRejectedError("replacement transaction underpriced");
      }
      this.known.delete(existing.hash);
    }
    queue.set(tx.nonce, { tx, hash, sender, arrival: this.arrivals++ });
    this.known.add(hash);
    return { sender: senderBytes, hash };
  }

  /** Senders with waiting transactions. */
  senders(): Uint8Array[] {
    return [...this.bySender.keys()].map((s) => Buffer.from(s, "hex"));
  }

  /**
   * Puts back a transaction that did not fit in the block (no re-validation); with `notBefore`
   * (performance.now()), not taken again before then.
   */
  requeue(tx: TypedTransaction, notBefore?: number): void {
    const sender = bytesToUnprefixedHex(senderOf(tx).bytes);
    const hash = bytesToHex(hashOf(tx));
    let queue = this.bySender.get(sender);
    if (queue === undefined) {
      queue = new Map();
      this.bySender.set(sender, queue);
    }
    queue.set(tx.nonce, {
      tx,
      hash,
      sender,
      arrival: -1,
      ...(notBefore === undefined ? {} : { notBefore }),
    });
    this.known.add(hash);
  }

  /** Every waiting transaction, by sender (first arrival first), each sender's in nonce order. */
  list(): Array<{ sender: Uint8Array; transactions: TypedTransaction[] }> {
    const out: Array<{ sender: Uint8Array; transactions: TypedTransaction[]; first: number }> = [];
    for (const [sender, queue] of this.bySender) {
      const entries = [...queue.values()].sort((a, b) => (a.tx.nonce < b.tx.nonce ? -1 : 1));
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
      for (const [nonce, entry] of queue)
        if (entry.hash === hex) {
          queue.delete(nonce);
          if (queue.size === 0) this.bySender.delete(sender);
          this.known.delete(hex);
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
    while (queue?.has(n)) n++;
    return n;
  }

  /**
   * Removes and returns the executable transactions (each sender's contiguous run from its
   * current nonce), in arrival order across senders and nonce order within one.
   */
  takeExecutable(stateNonce: (sender: Uint8Array) => bigint): TypedTransaction[] {
    const runs: Entry[][] = [];
    const now = performance.now();
    for (const [sender, queue] of this.bySender) {
      let n = stateNonce(Buffer.from(sender, "hex"));
      // Anything below the state nonce can never execute now.
      for (const [nonce, entry] of queue) {
        if (nonce < n) {
          this.known.delete(entry.hash);
          queue.delete(nonce);
        }
      }
      const run: Entry[] = [];
      for (
        let e = queue.get(n);
        e !== undefined && (e.notBefore ?? now) <= now;
        e = queue.get(++n)
      ) {
        run.push(e);
        queue.delete(n);
        this.known.delete(e.hash);
      }
      if (run.length > 0) runs.push(run);
      if (queue.size === 0) this.bySender.delete(sender);
    }
    // Merge the runs by arrival while keeping each sender's nonce order.
    const out: TypedTransaction[] = [];
    const heads = runs.map(() => 0);
    for (;;) {
      let best = -1;
      for (let i = 0; i < runs.length; i++) {
        const e = runs[i]![heads[i]!];
        if (e !== undefined && (best < 0 || e.arrival < runs[best]![heads[best]!]!.arrival))
          best = i;
      }
      if (best < 0) return out;
      out.push(runs[best]![heads[best]!]!.tx);
      heads[best]!++;
    }
  }
}
