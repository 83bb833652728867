// Composition root of `flashnode dev`: the sequencer and call workers, the pending view, the
// JSON-RPC server (HTTP + WebSocket) and the flashblocks stream, started in order and stopped
// in reverse.
import { rmSync } from "node:fs";
import { decodeHeader } from "../chain/blockView.ts";
import { type DevAccount, type DevFork, devAccounts, devGenesis } from "../chain/devGenesis.ts";
import {
  DEFAULT_FINALIZED_DEPTH,
  DEFAULT_SAFE_DEPTH,
  trailingForkchoice,
} from "../chain/forkchoice.ts";
import { chainSpecFromGenesis } from "../chain/genesis.ts";
import { DEPOSITOR_ACCOUNT } from "../chain/op/config.ts";
import { DEPOSIT_TX_TYPE } from "../chain/op/depositTx.ts";
import { DEFAULT_DEV_L1, type DevL1Config, devL1Values } from "../chain/op/l1Info.ts";
import { opPredeploys } from "../chain/op/predeploys.ts";
import type { ReceiptRecord } from "../chain/types.ts";
import { CallClient } from "../exec/callClient.ts";
import type { CallLimits } from "../exec/callLimits.ts";
import { createDevSigner } from "../exec/devSigner.ts";
import { createFeedHub } from "../feed/hub.ts";
import type { Logger } from "../log/logger.ts";
import type { FlashblockStats } from "../pending/flashblockStats.ts";
import type { PendingBlock } from "../pending/pendingBlock.ts";
import type { ChainUpdate, FlashblockUpdate, SealedUpdate } from "../pending/types.ts";
import type { StreamOptions } from "../replica/streams.ts";
import { createMethods } from "../rpc/methods.ts";
import { SequencerClient } from "../sequencer/sequencerClient.ts";
import { createChainStore } from "../store/chainStore.ts";
import { lockDatadir } from "../store/datadir.ts";
import { type KvEnv, openKvEnv } from "../store/lmdb.ts";
import { bytesToHex, equalBytes, hexToBytes } from "../util/hex.ts";
import { createBackend } from "./backendFactory.ts";
import {
  type ChainFollower,
  createChainFollower,
  followerHealth,
  followerMetrics,
} from "./chainFollower.ts";
import { type FrontendOptions, startFrontend } from "./frontend.ts";
import { PositionFence } from "./positionFence.ts";
import { startReaderCluster } from "./readerCluster.ts";
import { createUpdateRelay, type UpdateRelay } from "./updateRelay.ts";

export type DevNodeOptions = {
  readonly datadir: string;
  readonly fresh: boolean;
  readonly frontend: FrontendOptions;
  readonly logger: Logger;
  readonly chainId: bigint;
  readonly fork: DevFork;
  /** A geth genesis (parsed JSON) instead of the generated one. */
  readonly genesis: Record<string, unknown> | undefined;
  /** A new chain is plain Ethereum (`--ethereum`); by default it is an OP-stack chain. */
  readonly ethereum?: boolean;
  /** OP stack: the simulated L1 of the L1-info deposits (defaults: DEFAULT_DEV_L1). */
  readonly l1?: DevL1Config;
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
  /** --rpc-gascap, --rpc-evmtimeout (geth's defaults when absent). */
  readonly callLimits?: CallLimits;
  /** `--rpc-workers N` (N > 1): reader processes running this CLI with `argv` serve RPC. */
  readonly readers?: { readonly count: number; readonly argv: readonly string[] };
  /**
   * `--nats URL`: the sequencer's thread publishes the chain to JetStream for replicas
   * (src/replica/publisher.ts).
   */
  readonly nats?: { readonly servers: readonly string[]; readonly streams: StreamOptions };
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
  /** The test-mnemonic accounts the chain's genesis funds (none on an imported chain). */
  readonly accounts: readonly DevAccount[];
  /** The head the node started on when the datadir already held a chain (dev's own or imported). */
  readonly resumedAt: number | undefined;
  readonly chainId: bigint;
  /** The current pre-confirmed block (tests and metrics). */
  pending(): PendingBlock | undefined;
  /** Flashblock timings as the RPC thread saw them. */
  readonly stats: FlashblockStats;
  /** The processes serving RPC (this one, or the --rpc-workers readers). */
  readerPids(): number[];
  /** The NATS servers the chain is published to, if any. */
  readonly nats: string | undefined;
  close(): Promise<void>;
};

/** The L1-info deposit opening every OP-stack block (not a developer's transaction). */
function isL1InfoReceipt(r: ReceiptRecord): boolean {
  return r.type === DEPOSIT_TX_TYPE && equalBytes(r.from, DEPOSITOR_ACCOUNT);
}

export async function startDevNode(opts: DevNodeOptions): Promise<DevNode> {
  if (opts.fresh) {
    // Only a datadir no live process holds may be wiped.
    lockDatadir(opts.datadir).release();
    rmSync(opts.datadir, { recursive: true, force: true });
  }
  const lock = lockDatadir(opts.datadir);
  const accounts = devAccounts(opts.accounts);
  const l1 = opts.l1 ?? DEFAULT_DEV_L1;
  const timestamp = BigInt(Math.floor(Date.now() / 1000));
  const genesis =
    opts.genesis !== undefined
      ? opts.genesis
      : devGenesis({
          chainId: opts.chainId,
          fork: opts.fork,
          accounts,
          balanceWei: opts.balanceEth * 10n ** 18n,
          gasLimit: opts.gasLimit,
          timestamp,
          ...(opts.ethereum === true
            ? {}
            : {
                op: await opPredeploys(
                  devL1Values(l1, timestamp),
                  hexToBytes(accounts[0]?.address ?? `0x${"00".repeat(20)}`),
                ),
              }),
        });

  const feed = createFeedHub();
  let calls: CallClient | undefined;
  let follower: ChainFollower | undefined;
  let relay: UpdateRelay | undefined;
  const flashblockLog = opts.logger.child({ module: "pending" });
  const sealLog = opts.logger.child({ module: "chain" });
  // What a developer watches (anvil prints the same): each transaction as it runs, with the
  // contract it created; the flashblock itself only at debug. A reverted deployment's receipt
  // still names an address (as geth's does), but nothing was created there: not logged.
  // An OP-stack block's L1-info deposit is the chain's own bookkeeping: an idle chain stays quiet.
  const logPreconfirmed = (fb: FlashblockUpdate) => {
    if (fb.receipts.length === 0 || !flashblockLog.isLevelEnabled("info")) return;
    for (const r of fb.receipts) {
      if (isL1InfoReceipt(r)) continue;
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
  let logSealed: (u: SealedUpdate) => void = () => {};
  // Updates only arrive after the sequencer is ready, and the store is open by then.
  // The sequencer publishes as soon as it is ready, before the follower exists: a block rebuilt
  // from its record (after a restart), or the first block's flashblock 0 (on an OP-stack chain,
  // its L1-info deposit), would otherwise reach the readers without its flashblocks.
  const early: ChainUpdate[] = [];
  const onUpdate = (u: ChainUpdate) => {
    if (follower === undefined || (opts.readers !== undefined && relay === undefined))
      early.push(u);
    follower?.apply(u);
    relay?.publish(u);
    const fb = u.kind === "flashblock" ? u : u.next;
    logPreconfirmed(fb);
    if (u.kind === "sealed") logSealed(u);
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
  let fence: PositionFence | undefined;
  const undo = async () => {
    await calls?.stop();
    await sequencer?.stop();
    fence?.close();
    await env?.close();
    lock.release();
  };
  try {
    sequencer = await SequencerClient.start(
      {
        datadir: opts.datadir,
        genesis,
        genesisGiven: opts.genesis !== undefined,
        blockTimeMs: opts.blockTimeMs,
        flashblockIntervalMs: opts.flashblockIntervalMs,
        gasLimit: opts.gasLimit.toString(),
        coinbase: FEE_RECIPIENT,
        l1: {
          baseFee: l1.baseFee.toString(),
          blobBaseFee: l1.blobBaseFee.toString(),
          baseFeeScalar: l1.baseFeeScalar,
          blobBaseFeeScalar: l1.blobBaseFeeScalar,
        },
        ...(opts.nats === undefined
          ? {}
          : {
              nats: {
                servers: opts.nats.servers,
                streams: opts.nats.streams,
                logLevel: opts.logger.level,
              },
            }),
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
    // Only the test accounts this chain's genesis funds: none on an imported chain.
    const funded = accounts.filter((a) => spec.alloc.has(a.address.slice(2).toLowerCase()));
    const resumedAt = sequencerClient.resumedAt;
    const readers = opts.readers;
    if (readers === undefined)
      calls = await CallClient.start(
        {
          datadir: opts.datadir,
          gasCeil: opts.gasLimit.toString(),
          ...(opts.callLimits === undefined ? {} : { limits: opts.callLimits }),
        },
        opts.logger,
      );
    const callClient = calls;
    const chain = createChainFollower({
      kv,
      store,
      feed,
      decodeHeader: (rlp) => decodeHeader(spec.common, rlp),
      ...(callClient === undefined ? {} : { forward: (u: ChainUpdate) => callClient.forward(u) }),
    });
    for (const u of early) chain.apply(u, true);
    follower = chain;
    const nats = opts.nats?.servers.join(",");
    logSealed = (u) => {
      const receipts = store.receipts(u.number, u.hash);
      if (receipts === undefined) return;
      // An idle chain seals an empty block every block time: those only at debug, so the start
      // banner is not buried.
      const sealed = {
        block: u.number,
        hash: bytesToHex(u.hash),
        // The developer's transactions: an OP-stack block's L1-info deposit is not counted.
        transactions: receipts.receipts.filter((r) => !isL1InfoReceipt(r)).length,
        gasUsed: Number(receipts.receipts.at(-1)?.cumulativeGasUsed ?? 0n),
      };
      if (sealed.transactions === 0) sealLog.debug(sealed, "sealed");
      else sealLog.info(sealed, "sealed");
    };
    if (readers !== undefined) {
      fence = PositionFence.create(opts.datadir);
      const updates = createUpdateRelay(sequencerClient, fence, opts.logger);
      const cluster = await startReaderCluster({
        readers: readers.count,
        argv: readers.argv,
        logger: opts.logger,
        onMessage: updates.onMessage,
        onExit: updates.onExit,
      });
      relay = updates;
      for (const u of early) updates.publish(u);
      early.length = 0;
      opts.logger.info(
        { url: cluster.url, readers: readers.count, pids: cluster.pids() },
        "serving JSON-RPC",
      );
      return {
        url: cluster.url,
        dedicatedUrl: cluster.dedicatedUrl,
        wsUrl: cluster.url.replace(/^http/, "ws"),
        accounts: funded,
        resumedAt,
        chainId: spec.chainId,
        pending: chain.pending,
        stats: chain.stats,
        readerPids: cluster.pids,
        nats,
        async close() {
          await cluster.close();
          await undo();
        },
      };
    }

    const backend = createBackend(spec, store, {
      feed,
      pending: chain.pending,
      transactions: {
        submit: (raw) => sequencerClient.submit(raw),
        poolNonce: (address) => sequencerClient.poolNonce(address),
        mine: () => sequencerClient.mine(),
        poolContent: () => sequencerClient.poolContent(),
        control: (request) => sequencerClient.control(request),
        waitForReceipt: (hash, ms) =>
          opts.receipts === "sealed"
            ? chain.waitUntilSealed(hash, ms)
            : chain.waitForInclusion(hash, ms),
      },
      ...(callClient === undefined ? {} : { calls: callClient }),
      signer: createDevSigner(spec, funded),
      preconfirmedReceipts: opts.receipts === "preconfirmed",
      forkchoice: trailingForkchoice(opts.safeDepth, opts.finalizedDepth),
      timeline: chain.timeline,
    });
    const methods = createMethods(backend);
    const frontend = await startFrontend({
      options: opts.frontend,
      methods,
      feed,
      logger: opts.logger,
      metricsSources: followerMetrics(kv, store, chain),
      health: followerHealth(kv, store, chain, opts.flashblockIntervalMs),
    });
    return {
      url: frontend.url,
      dedicatedUrl: frontend.dedicatedUrl,
      wsUrl: frontend.wsUrl,
      accounts: funded,
      resumedAt,
      chainId: spec.chainId,
      pending: chain.pending,
      stats: chain.stats,
      readerPids: () => [process.pid],
      nats,
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
