// Composition root of `flashnode dev`: the sequencer and call workers, the pending view, the
// JSON-RPC server (HTTP + WebSocket) and the flashblocks stream, started in order and stopped
// in reverse.
import { rmSync } from "node:fs";
import type { Server } from "node:http";
import { type DevAccount, type DevFork, devAccounts, devGenesis } from "../chain/devGenesis.ts";
import {
  DEFAULT_FINALIZED_DEPTH,
  DEFAULT_SAFE_DEPTH,
  trailingForkchoice,
} from "../chain/forkchoice.ts";
import { chainSpecFromGenesis } from "../chain/genesis.ts";
import { CallClient } from "../exec/callClient.ts";
import { createFeedHub } from "../feed/hub.ts";
import type { LogEvent } from "../feed/types.ts";
import type { Logger } from "../log/logger.ts";
import { RateWindow } from "../metrics/rateWindow.ts";
import { FlashblockStats } from "../pending/flashblockStats.ts";
import { applyFlashblock, type PendingBlock } from "../pending/pendingBlock.ts";
import type { FlashblockUpdate, SealedUpdate } from "../pending/types.ts";
import { headerJson } from "../rpc/format/block.ts";
import { logJson } from "../rpc/format/receipt.ts";
import { createMethods } from "../rpc/methods.ts";
import { SequencerClient } from "../sequencer/sequencerClient.ts";
import { createChainStore } from "../store/chainStore.ts";
import { lockDatadir } from "../store/datadir.ts";
import { type KvEnv, openKvEnv } from "../store/lmdb.ts";
import { bytesToHex, bytesToUnprefixedHex } from "../util/hex.ts";
import { createBackend } from "./backendFactory.ts";
import { type FrontendOptions, startFrontend } from "./frontend.ts";
import { pendingReadiness, storeReadiness } from "./readiness.ts";
import { SealWaiters } from "./sealWaiters.ts";

export type DevNodeOptions = {
  readonly datadir: string;
  readonly fresh: boolean;
  readonly frontend: FrontendOptions;
  readonly logger: Logger;
  readonly chainId: bigint;
  readonly fork: DevFork;
  /** A geth genesis (parsed JSON) instead of the generated one. */
  readonly genesis: Record<string, unknown> | undefined;
  readonly blockTimeMs: number;
  readonly flashblockIntervalMs: number;
  readonly gasLimit: bigint;
  readonly accounts: number;
  readonly balanceEth: bigint;
  /** How many blocks `safe` and `finalized` trail `latest`. */
  readonly safeDepth: number;
  readonly finalizedDepth: number;
  /** Whether transaction lookups answer at pre-confirmation or only once sealed. */
  readonly receipts: ReceiptLookups;
};

export const RECEIPT_LOOKUPS = ["preconfirmed", "sealed"] as const;
export type ReceiptLookups = (typeof RECEIPT_LOOKUPS)[number];

export const DEFAULT_DEV_OPTIONS = {
  chainId: 31337n,
  fork: "osaka" as DevFork,
  blockTimeMs: 2000,
  flashblockIntervalMs: 200,
  gasLimit: 60_000_000n,
  accounts: 10,
  balanceEth: 10_000n,
  safeDepth: DEFAULT_SAFE_DEPTH,
  finalizedDepth: DEFAULT_FINALIZED_DEPTH,
  receipts: "preconfirmed" as ReceiptLookups,
};

/** Base's SequencerFeeVault: where a Base block's fees go. */
const FEE_RECIPIENT = "0x4200000000000000000000000000000000000011";

export type DevNode = {
  readonly url: string;
  /** The first dedicated endpoint (/rpc/<key>). */
  readonly dedicatedUrl: string;
  readonly wsUrl: string;
  readonly server: Server;
  readonly accounts: readonly DevAccount[];
  readonly chainId: bigint;
  /** The current pre-confirmed block (tests and metrics). */
  pending(): PendingBlock | undefined;
  /** Flashblock timings as the RPC thread saw them. */
  readonly stats: FlashblockStats;
  close(): Promise<void>;
};

export async function startDevNode(opts: DevNodeOptions): Promise<DevNode> {
  if (opts.fresh) {
    // Only a datadir no live process holds may be wiped.
    lockDatadir(opts.datadir).release();
    rmSync(opts.datadir, { recursive: true, force: true });
  }
  const lock = lockDatadir(opts.datadir);
  const accounts = devAccounts(opts.accounts);
  const genesis =
    opts.genesis !== undefined
      ? opts.genesis
      : devGenesis({
          chainId: opts.chainId,
          fork: opts.fork,
          accounts,
          balanceWei: opts.balanceEth * 10n ** 18n,
          gasLimit: opts.gasLimit,
          timestamp: BigInt(Math.floor(Date.now() / 1000)),
        });

  const feed = createFeedHub();
  let pending: PendingBlock | undefined;
  let calls: CallClient | undefined;
  // Filled once the store is open; updates only arrive after the worker is ready.
  let onSealed: (u: SealedUpdate) => void = () => {};
  const stats = new FlashblockStats();
  const flashblockLog = opts.logger.child({ module: "pending" });
  const sealLog = opts.logger.child({ module: "chain" });
  const txRate = new RateWindow(10_000);
  const now = () => performance.timeOrigin + performance.now();
  // What a developer watches (anvil prints the same): each transaction as it runs, with the
  // contract it created; the flashblock itself only at debug. A reverted deployment's receipt
  // still names an address (as geth's does), but nothing was created there: not logged.
  const logPreconfirmed = (fb: FlashblockUpdate) => {
    if (fb.receipts.length === 0 || !flashblockLog.isLevelEnabled("info")) return;
    for (const r of fb.receipts) {
      const created = r.status === 0 ? undefined : r.contractAddress;
      flashblockLog.info(
        {
          hash: bytesToHex(r.transactionHash),
          from: bytesToHex(r.from),
          status: r.status === 0 ? "reverted" : "success",
          gasUsed: Number(r.gasUsed),
          ...(created === undefined ? {} : { contract: bytesToHex(created) }),
          block: fb.base.number,
          flashblock: fb.index,
        },
        created === undefined ? "transaction pre-confirmed" : "contract created",
      );
    }
  };
  const onUpdate = (u: FlashblockUpdate | SealedUpdate) => {
    calls?.forward(u);
    const fb = u.kind === "flashblock" ? u : u.next;
    logPreconfirmed(fb);
    if (u.kind === "flashblock") {
      txRate.add(u.transactions.length);
      pending = applyFlashblock(pending, u);
      feed.emitFlashblock({ blockNumber: u.base.number, index: u.index, json: u.wireJson });
    } else {
      onSealed(u);
      feed.emitFlashblock({ blockNumber: u.next.base.number, index: 0, json: u.next.wireJson });
    }
    stats.record(fb.buildMs, fb.publishedAt, now());
    flashblockLog.debug(
      {
        block: fb.base.number,
        index: fb.index,
        transactions: fb.transactions.length,
        buildMs: fb.buildMs,
      },
      "flashblock",
    );
  };

  // Stopped in reverse order of start: workers before the store they write, the lock last.
  let sequencer: SequencerClient | undefined;
  let env: KvEnv | undefined;
  const undo = async () => {
    await calls?.stop();
    await sequencer?.stop();
    await env?.close();
    lock.release();
  };
  try {
    sequencer = await SequencerClient.start(
      {
        datadir: opts.datadir,
        genesis,
        blockTimeMs: opts.blockTimeMs,
        flashblockIntervalMs: opts.flashblockIntervalMs,
        gasLimit: opts.gasLimit.toString(),
        coinbase: FEE_RECIPIENT,
      },
      onUpdate,
      opts.logger.child({ module: "sequencer" }),
    );
    const sequencerClient = sequencer;
    const kv = openKvEnv(opts.datadir);
    env = kv;
    const store = createChainStore(kv);
    const spec = await chainSpecFromGenesis(
      JSON.parse(store.chainConfig() ?? JSON.stringify(genesis)),
    );
    calls = await CallClient.start({ datadir: opts.datadir });
    const seals = new SealWaiters(() => store.headNumber());
    /** `--receipts sealed`: lookups see a transaction once the block it was pre-confirmed in seals. */
    const waitUntilSealed = async (hash: Uint8Array, ms: number): Promise<boolean> => {
      const deadline = performance.now() + ms;
      const preconfirmed = () => pending?.txIndex.has(bytesToUnprefixedHex(hash)) === true;
      if (store.transactionLocation(hash) !== undefined) return true;
      if (!preconfirmed() && !(await sequencerClient.waitForInclusion(hash, ms))) return false;
      const block = pending?.base.number;
      if (store.transactionLocation(hash) !== undefined || block === undefined) return true;
      return seals.wait(block, deadline - performance.now());
    };

    onSealed = (u) => {
      // The worker committed the block before it posted this: see it, then swap the pending view,
      // so head and pending change together.
      kv.refresh();
      pending = applyFlashblock(undefined, u.next);
      seals.sealed(u.number);
      const headerRlp = store.headerRlp(u.number, u.hash);
      const receipts = store.receipts(u.number, u.hash);
      if (headerRlp === undefined || receipts === undefined) return;
      // An idle chain seals an empty block every block time: those only at debug, so the start
      // banner is not buried.
      const sealed = {
        block: u.number,
        hash: bytesToHex(u.hash),
        transactions: receipts.receipts.length,
        gasUsed: Number(receipts.receipts.at(-1)?.cumulativeGasUsed ?? 0n),
      };
      if (sealed.transactions === 0) sealLog.debug(sealed, "sealed");
      else sealLog.info(sealed, "sealed");
      feed.emitNewHead({
        blockNumber: u.number,
        json: headerJson(backend.decoder.header(headerRlp)),
      });
      const logs: LogEvent[] = [];
      let logIndex = 0;
      receipts.receipts.forEach((r, i) => {
        r.logs.forEach((log, j) => {
          const ctx = {
            blockHash: u.hash,
            blockNumber: u.number,
            blockTimestamp: receipts.blockTimestamp,
            transactionIndex: i,
            firstLogIndex: logIndex,
          };
          logs.push({ address: log.address, topics: log.topics, json: logJson(log, r, ctx, j) });
        });
        logIndex += r.logs.length;
      });
      if (logs.length > 0) feed.emitLogs(logs);
    };

    const backend = createBackend(spec, store, {
      pending: () => pending,
      transactions: {
        submit: (raw) => sequencerClient.submit(raw),
        poolNonce: (address) => sequencerClient.poolNonce(address),
        mine: () => sequencerClient.mine(),
        waitForReceipt: (hash, ms) =>
          opts.receipts === "sealed"
            ? waitUntilSealed(hash, ms)
            : sequencerClient.waitForInclusion(hash, ms),
      },
      calls,
      preconfirmedReceipts: opts.receipts === "preconfirmed",
      forkchoice: trailingForkchoice(opts.safeDepth, opts.finalizedDepth),
    });
    const methods = createMethods(backend);
    const staleAfterMs = Math.max(1000, opts.flashblockIntervalMs * 5);
    const frontend = await startFrontend({
      options: opts.frontend,
      methods,
      feed,
      logger: opts.logger,
      metricsSources: {
        head: () => store.headNumber(),
        pendingNumber: () => pending?.base.number,
        flashblocks: stats,
        storeSizeBytes: () => kv.sizeOnDisk(),
        transactionsPerSecond: () => txRate.perSecond(),
      },
      health: () => {
        const reasons = [
          ...storeReadiness(kv, store),
          ...pendingReadiness(stats.lastAppliedAt, now(), staleAfterMs),
        ];
        return { live: true, ready: reasons.length === 0, reasons };
      },
    });
    return {
      url: frontend.url,
      dedicatedUrl: frontend.dedicatedUrl,
      wsUrl: frontend.wsUrl,
      server: frontend.server,
      accounts,
      chainId: spec.chainId,
      pending: () => pending,
      stats,
      async close() {
        await frontend.close();
        await undo();
      },
    };
  } catch (e) {
    // A node that cannot start (port in use, …) leaves no worker or lock behind.
    await undo();
    throw e;
  }
}
