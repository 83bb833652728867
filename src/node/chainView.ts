// What an RPC process keeps of the sequencer's stream of flashblocks and sealed blocks: the
// pending view, the archive snapshot it reads (refreshed at each seal, together with the pending
// swap), the events of subscriptions and /flashblocks, and the waiters for inclusion and seals.
// The same code follows the sequencer in the sequencer's own process and in each --rpc-workers
// reader (fed over IPC): a reader is the sequencer's stream applied, nothing more.
import type { HeaderView } from "../chain/blockView.ts";
import { DEPOSIT_TX_TYPE } from "../chain/op/depositTx.ts";
import type { BlockReceipts } from "../chain/types.ts";
import type { Health } from "../edge/edgeServer.ts";
import type { FeedHub } from "../feed/hub.ts";
import type { LogEvent } from "../feed/types.ts";
import type { MetricsSources } from "../metrics/metrics.ts";
import { RateWindow } from "../metrics/rateWindow.ts";
import { FlashblockStats } from "../pending/flashblockStats.ts";
import { hasWireJson, wireJsonOf } from "../pending/flashblockWire.ts";
import { InclusionWaiters } from "../pending/inclusionWaiters.ts";
import { applyFlashblock, type PendingBlock } from "../pending/pendingBlock.ts";
import { TxTimeline } from "../pending/txTimeline.ts";
import {
  type ChainUpdate,
  type FlashblockUpdate,
  type SealedUpdate,
  updatePosition,
} from "../pending/types.ts";
import { headerJson } from "../rpc/format/block.ts";
import { forEachLog, logJson } from "../rpc/format/receipt.ts";
import type { ChainStore } from "../store/archive.ts";
import type { KvEnv } from "../store/lmdb.ts";
import { bytesToHex } from "../util/hex.ts";
import { pendingReadiness, storeReadiness } from "./readiness.ts";
import { SealWaiters } from "./sealWaiters.ts";

export type ChainView = {
  pending(): PendingBlock | undefined;
  /**
   * The newest sealed block this view has shown: the head RPC answers from. The archive may
   * already hold a newer block (its writer commits before it sends the seal); it is shown with
   * the seal's update, together with the next block's flashblock 0, never before. A block's
   * flashblocks taken without its seal (a reader that joined before it) make its parent the head.
   */
  head(): number | undefined;
  /** The position of the newest update applied (0 before any). */
  position(): number;
  /**
   * Applies an update; `catchUp`: one published before this view existed (not timed in the
   * flashblock stats).
   */
  apply(u: ChainUpdate, catchUp?: boolean): void;
  /** Resolves once an update at or past `position` is applied, or false at the deadline. */
  waitForPosition(position: number, timeoutMs: number): Promise<boolean>;
  /** True once a flashblock carries the transaction; false at the deadline. */
  waitForInclusion(hash: Uint8Array, timeoutMs: number): Promise<boolean>;
  /** True once the block that pre-confirmed the transaction is sealed; false at the deadline. */
  waitUntilSealed(hash: Uint8Array, timeoutMs: number): Promise<boolean>;
  readonly stats: FlashblockStats;
  readonly txRate: RateWindow;
  /** Recent pre-confirmation and seal times (the live page, flashnode_* methods). */
  readonly timeline: TxTimeline;
};

/** What /metrics reads of a node that follows the stream (the single process or a reader). */
export function chainViewMetrics(kv: KvEnv, chain: ChainView): MetricsSources {
  return {
    head: chain.head,
    pendingNumber: () => chain.pending()?.base.number,
    flashblocks: chain.stats,
    storeSizeBytes: () => kv.sizeOnDisk(),
    transactionsPerSecond: () => chain.txRate.perSecond(),
  };
}

/**
 * /readyz of such a node: the store open with a head, and a flashblock within five intervals
 * (at least a second).
 */
export function chainViewHealth(
  kv: KvEnv,
  store: ChainStore,
  chain: ChainView,
  flashblockIntervalMs: number,
): () => Health {
  const staleAfterMs = Math.max(1000, flashblockIntervalMs * 5);
  return () => {
    const now = performance.timeOrigin + performance.now();
    const reasons = [
      ...storeReadiness(kv, store),
      ...pendingReadiness(chain.stats.lastAppliedAt, now, staleAfterMs),
    ];
    return { live: true, ready: reasons.length === 0, reasons };
  };
}

const ZERO32 = new Uint8Array(32);

/**
 * A block's logs as the feed carries them, rendered once; `removed` for those of a block the
 * chain dropped. `from`: the receipts are the block's from that position on.
 */
function logEvents(
  block: BlockReceipts,
  removed = false,
  from?: { readonly transactionIndex: number; readonly logIndex: number },
): LogEvent[] {
  const logs: LogEvent[] = [];
  forEachLog(
    block,
    (log, r, ctx, j) =>
      logs.push({
        address: log.address,
        topics: log.topics,
        transactionHash: bytesToHex(r.transactionHash),
        json: logJson(log, r, ctx, j, removed),
        ...(removed ? { removed } : {}),
      }),
    from,
  );
  return logs;
}

export function createChainView(deps: {
  readonly kv: KvEnv;
  readonly store: ChainStore;
  readonly feed: FeedHub;
  readonly decodeHeader: (rlp: Uint8Array) => HeaderView;
  /**
   * Told of the pending block after every update (the call worker's view, which shares its
   * layers); `sealed`: the update sealed a block.
   */
  readonly forward?: (pending: PendingBlock, sealed: boolean) => void;
  /** A sent transaction as a pool renders it (newPendingTransactions with full transactions). */
  readonly renderTransaction?: (raw: Uint8Array, from: Uint8Array) => string;
}): ChainView {
  const { kv, store, feed } = deps;
  let pending: PendingBlock | undefined;
  // Until the first update: the archive's head as this view started. From then on the block
  // the pending view builds on, whatever the archive holds.
  let head = store.headNumber();
  let position = 0;
  const stats = new FlashblockStats();
  const txRate = new RateWindow(10_000);
  const timeline = new TxTimeline();
  const seals = new SealWaiters(() => head);
  const included = new InclusionWaiters();
  // The same waiting as for seals, over stream positions.
  const reached = new SealWaiters(() => position);
  const now = () => performance.timeOrigin + performance.now();

  /**
   * A flashblock that opens a block without a seal: its parent is the head. The first updates a
   * view takes may be such (a sequencer's first block; the block so far, given to a reader that
   * joins before its seal), and the archive it opened may already hold the block they
   * pre-confirm (committed before its seal was sent): taken as the head, it would make `pending`
   * answer `latest`, that same block. Past a view's first updates, the seal has normally moved
   * the head there already.
   */
  const openedOn = (parent: number) => {
    if (parent > (head ?? -1)) kv.refresh();
    head = parent;
    seals.sealed(parent);
  };

  const onSealed = (u: SealedUpdate) => {
    // The sequencer committed the block before it posted this: see it, then swap the pending
    // view, so head and pending change together.
    kv.refresh();
    pending = applyFlashblock(undefined, u.next);
    deps.forward?.(pending, true);
    head = u.number;
    seals.sealed(u.number);
    const reverted = u.reverted;
    if (reverted !== undefined) {
      // evm_revert: the dropped blocks' logs (the oldest block's first, as geth's reorg sends
      // them) and the dropped pre-confirmed ones, each `removed`; then the new head.
      const removed = [
        ...reverted.blocks,
        ...(reverted.pending === undefined ? [] : [reverted.pending]),
      ].flatMap((b) => logEvents(b, true));
      if (removed.length > 0) feed.emitLogs(removed);
    }
    // A block being built that was rebuilt (a new time, a dropped transaction): the head is the
    // same, no new head to tell (anvil_reset's new chain has one).
    if (reverted !== undefined && reverted.blocks.length === 0 && u.reset === undefined) return;
    const headerRlp = store.headerRlp(u.number, u.hash);
    const receipts = store.receipts(u.number, u.hash);
    if (headerRlp === undefined || receipts === undefined) return;
    feed.emitNewHead({
      blockNumber: u.number,
      hash: bytesToHex(u.hash),
      json: headerJson(deps.decodeHeader(headerRlp)),
    });
    if (reverted !== undefined) return;
    const logs = logEvents(receipts);
    if (logs.length > 0) feed.emitLogs(logs);
  };

  // The flashblock's new receipts are the last of the pending block's: their log indexes and
  // transaction indexes continue the block's.
  const emitPreconfirmed = (fb: FlashblockUpdate) => {
    const block = pending;
    if (block === undefined) return;
    let newLogs = 0;
    for (const r of fb.receipts) newLogs += r.logs.length;
    const logs = logEvents(
      {
        blockNumber: block.base.number,
        blockHash: ZERO32,
        blockTimestamp: block.base.timestamp,
        receipts: fb.receipts,
      },
      false,
      {
        transactionIndex: block.transactionCount - fb.receipts.length,
        logIndex: block.logCount - newLogs,
      },
    );
    // Deposits (0x7e) come from L1, never through a pool.
    const sent = fb.transactions.flatMap((t, i) =>
      t.raw[0] === DEPOSIT_TX_TYPE ? [] : [{ t, from: fb.receipts[i]?.from }],
    );
    let rendered: readonly string[] | undefined;
    const render = deps.renderTransaction;
    feed.emitPreconfirmed({
      blockNumber: block.base.number,
      transactionHashes: fb.transactions.map((t) => bytesToHex(t.hash)),
      logs,
      sent: {
        hashes: sent.map((s) => bytesToHex(s.t.hash)),
        json: () => {
          rendered ??= sent.flatMap((s) =>
            render === undefined || s.from === undefined ? [] : [render(s.t.raw, s.from)],
          );
          return rendered;
        },
      },
    });
  };

  /**
   * /flashblocks: Base's wire message, rendered from the update in this process (once, and only
   * when a client reads it), after this update's turn: readers see the pending view first.
   */
  const emitWire = (fb: FlashblockUpdate) => {
    if (fb.empty === true || !hasWireJson(fb)) return;
    setImmediate(() =>
      feed.emitFlashblock({
        blockNumber: fb.base.number,
        index: fb.index,
        get json() {
          return wireJsonOf(fb) ?? "";
        },
      }),
    );
  };

  const chain: ChainView = {
    pending: () => pending,
    head: () => head,
    position: () => position,
    stats,
    txRate,
    timeline,
    apply(u, catchUp = false) {
      const fb = u.kind === "flashblock" ? u : u.next;
      if (u.kind === "flashblock") {
        txRate.add(u.transactions.length);
        pending = applyFlashblock(pending, u);
        if (pending.base.number - 1 !== head) openedOn(pending.base.number - 1);
        deps.forward?.(pending, false);
        emitWire(u);
      } else {
        if (u.reverted === undefined) timeline.sealed(u.number, u.hash, u.sealedAt ?? now());
        else timeline.reverted(u.number);
        onSealed(u);
        emitWire(fb);
      }
      timeline.flashblock(fb, (pending?.transactionCount ?? 0) - fb.transactions.length);
      if (fb.transactions.length > 0) emitPreconfirmed(fb);
      position = updatePosition(u);
      stats.record(fb.buildMs, fb.publishedAt, now(), !catchUp);
      for (const t of fb.transactions) included.release(t.hash);
      reached.sealed(position);
    },
    waitForPosition: (at, timeoutMs) => reached.wait(at, timeoutMs),
    waitForInclusion: (hash, ms) => included.wait(hash, ms),
    async waitUntilSealed(hash, ms) {
      const deadline = performance.now() + ms;
      const preconfirmed = () => pending?.transactionIndex(hash) !== undefined;
      // Sealed as this view shows it: in a block at or below its head.
      const sealedIn = () => store.transactionLocation(hash)?.number;
      const at = sealedIn();
      if (at !== undefined) return seals.wait(at, ms);
      if (!preconfirmed() && !(await included.wait(hash, ms))) return false;
      const block = sealedIn() ?? pending?.base.number;
      if (block === undefined) return true;
      return seals.wait(block, deadline - performance.now());
    },
  };
  return chain;
}
