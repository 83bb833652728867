// The sequencer's thread: it owns the archive's write side and the EVM, so block building never
// stalls the thread that answers RPC.
import { parentPort, workerData } from "node:worker_threads";
import { type ChainSpec, chainSpecFromGenesis } from "../chain/genesis.ts";
import { newDevGenesis } from "../chain/newDevChain.ts";
import { SEQUENCER_FEE_VAULT } from "../chain/op/config.ts";
import { ensureForkBase, ensureGenesis } from "../exec/chainStart.ts";
import { GenesisMismatchError } from "../exec/importer.ts";
import { threadLog } from "../log/logger.ts";
import type { Publisher } from "../replica/publisher.ts";
import { TxRejectedError } from "../services/transactions.ts";
import type { ChainStore } from "../store/archive.ts";
import { createChainStore } from "../store/chainStore.ts";
import { type KvEnv, openKvEnv } from "../store/lmdb.ts";
import { setArchiveProducer } from "../store/producer.ts";
import { UpstreamCallStats } from "../upstream/callStats.ts";
import { openForkReads } from "../upstream/forkReads.ts";
import { toWire } from "../util/channel.ts";
import { isOperatorError } from "../util/errors.ts";
import { hexToBytes } from "../util/hex.ts";
import { parentChannel, tsWorkerData } from "../util/tsWorker.ts";
import { DevRequestError } from "./devHost.ts";
import type { SubmitResult } from "./intake.ts";
import type {
  SequencerApi,
  SequencerFork,
  SequencerParentApi,
  SequencerWorkerData,
  Submitted,
} from "./protocol.ts";
import { Sequencer } from "./sequencer.ts";

const channel = parentChannel<SequencerParentApi, SequencerApi>(parentPort, "the RPC thread");
const data = tsWorkerData<SequencerWorkerData>(workerData);
/** This thread's log (log/logger.ts threadLog). */
const { logger, log } = threadLog(data.logLevel, (record) => channel.emit("log", record));
/** How long stopping waits for the NATS publisher to finish its in-flight publish and drain. */
const PUBLISHER_CLOSE_MS = 3_000;
/** How often what /readyz says of the sequencer (NATS, a fork's upstream, a stall) is checked. */
const HEALTH_CHECK_MS = 500;

/** What this thread's upstream client did (the node's upstream metrics). */
const upstreamStats = new UpstreamCallStats();

/** A forked chain's executor: its upstream opened, its archive begun at F or continued. */
async function openForked(
  spec: ChainSpec,
  store: ChainStore,
  env: KvEnv,
  fork: SequencerFork,
  replace: boolean,
) {
  const reads = openForkReads(env, {
    upstream: fork.upstream,
    point: {
      chainId: BigInt(fork.chainId),
      number: BigInt(fork.number),
      hash: hexToBytes(fork.hash),
    },
    logger,
    hooks: upstreamStats.hooks,
  });
  const executor = await ensureForkBase(
    spec,
    store,
    { upstream: reads.state, hashes: reads.hashes },
    {
      chainId: BigInt(fork.chainId),
      number: fork.number,
      hash: hexToBytes(fork.hash),
      ...(fork.base === undefined
        ? {}
        : {
            base: {
              headerRlp: hexToBytes(fork.base.headerRlp),
              writes: fork.base.writes.map((w) => ({
                address: hexToBytes(w.address),
                ...(w.balance === undefined ? {} : { balance: BigInt(w.balance) }),
                ...(w.code === undefined ? {} : { code: hexToBytes(w.code) }),
              })),
            },
          }),
    },
    { replace },
  );
  return { executor, reads };
}

async function main(): Promise<void> {
  const env = openKvEnv(data.datadir);
  const store = createChainStore(env);
  const stored = store.chainConfig();
  const replace = data.replace !== undefined;
  if (
    data.fork === undefined &&
    !replace &&
    stored !== undefined &&
    data.genesisGiven &&
    stored !== JSON.stringify(data.genesis)
  ) {
    const chainId = (JSON.parse(stored) as { config?: { chainId?: unknown } }).config?.chainId;
    throw new GenesisMismatchError(
      `${data.datadir} holds a chain from another genesis (chain id ${String(chainId)}, head ${store.headNumber() ?? 0}) than --genesis: drop --genesis to continue that chain, or add --fresh to start over from this genesis`,
    );
  }
  if (data.fork === undefined && !replace && stored !== undefined && data.chainIdGiven === true) {
    // As geth's "mismatching genesis": an explicit chain id is this datadir's, or refused.
    const chainId = (JSON.parse(stored) as { config?: { chainId?: unknown } }).config?.chainId;
    if (String(chainId) !== String(data.newChain.chainId))
      throw new GenesisMismatchError(
        `${data.datadir} holds chain ${String(chainId)} (head ${store.headNumber() ?? 0}), not --chain-id ${data.newChain.chainId}: drop --chain-id to continue that chain, or add --fresh to start a new one`,
      );
  }
  const genesis =
    stored !== undefined && !replace
      ? JSON.parse(stored)
      : (data.genesis ?? (await newDevGenesis(data.newChain)));
  const spec = await chainSpecFromGenesis(genesis);
  const forked =
    data.fork === undefined ? undefined : await openForked(spec, store, env, data.fork, replace);
  const executor = forked?.executor ?? (await ensureGenesis(spec, store, { replace }));
  // Its own blocks from here on: a replica refuses this datadir (store/producer.ts).
  setArchiveProducer(env, "sequencer");
  let publisher: Publisher | undefined;
  const sequencer = new Sequencer(
    executor,
    store,
    spec.common.copy(),
    {
      blockTimeMs: data.blockTimeMs,
      automine: data.automine === true,
      flashblockIntervalMs: data.flashblockIntervalMs,
      gasLimit: BigInt(data.gasLimit),
      // An OP-stack chain's fee recipient is the SequencerFeeVault, whatever was asked.
      coinbase: spec.op === undefined ? hexToBytes(data.coinbase) : SEQUENCER_FEE_VAULT,
      ...(data.l1 === undefined
        ? {}
        : {
            l1: {
              baseFee: BigInt(data.l1.baseFee),
              blobBaseFee: BigInt(data.l1.blobBaseFee),
              baseFeeScalar: data.l1.baseFeeScalar,
              blobBaseFeeScalar: data.l1.blobBaseFeeScalar,
            },
          }),
    },
    (update) => {
      channel.emit("update", update);
      publisher?.onUpdate(update);
    },
    log,
  );
  if (data.replace !== undefined) sequencer.continueFrom(data.replace.position);
  // The RPC thread learns of every accepted transaction (its pool nonces, the log): those it
  // sent in the answer, the others (a replica's over NATS, eth_sendUnsignedTransaction's) by an
  // event; either way before the submitter's answer.
  const submitted = (r: SubmitResult): Submitted => ({
    hash: r.hash,
    sender: r.sender,
    nonce: r.nonce,
    nextNonce: r.nextNonce,
  });
  sequencer.onSubmitted = (r) => channel.emit("submitted", submitted(r));
  const submit = (raw: Uint8Array, told: boolean) =>
    sequencer.submit(raw, { told }).then(submitted, (e: unknown) => {
      throw e instanceof DevRequestError ? e : new TxRejectedError((e as Error).message);
    });
  // NATS is loaded only when asked for (`dev --nats`): a third of this thread's code otherwise.
  if (data.nats !== undefined) {
    const { startPublisher } = await import("../replica/publisher.ts");
    publisher = startPublisher({
      servers: data.nats.servers,
      store,
      streams: data.nats.streams,
      sequencer: {
        submit: (raw) => submit(raw, false).then((r) => ({ hash: r.hash })),
        mine: () => sequencer.mine(),
      },
      logger,
    });
  }
  sequencer.onBlockCommitted = () => publisher?.blockCommitted();
  // The RPC thread's /readyz says why while NATS or a fork's upstream is out of reach, and while
  // blocks do not seal; its /metrics shows what the upstream client did.
  let said = "[]";
  let upstreamDownSince: number | undefined;
  const healthTimer = setInterval(() => {
    const reasons: string[] = [];
    const nats = publisher?.unreachable();
    if (nats !== undefined) reasons.push(nats);
    const upstream = forked?.reads.client.reachability() ?? { reachable: true };
    if (!upstream.reachable) {
      reasons.push(`upstream unreachable: ${upstream.reason}`);
      if (upstreamDownSince === undefined)
        log("warn", "upstream unreachable", { reason: upstream.reason });
      upstreamDownSince ??= upstream.since;
    } else if (upstreamDownSince !== undefined) {
      log("info", "upstream answers again", { downMs: Date.now() - upstreamDownSince });
      upstreamDownSince = undefined;
    }
    const stalled = sequencer.stalled(!upstream.reachable);
    if (stalled !== undefined) reasons.push(stalled);
    const health =
      forked === undefined ? { reasons } : { reasons, upstream: upstreamStats.snapshot() };
    const text = JSON.stringify(health);
    if (text === said) return;
    said = text;
    channel.emit("health", health);
  }, HEALTH_CHECK_MS);
  healthTimer.unref();
  channel.handle("submit", (raw) => submit(raw, true));
  channel.handle("mine", () => sequencer.mine());
  channel.handle("control", (request) =>
    sequencer.control(request).catch((e: unknown) => {
      // eth_sendUnsignedTransaction's refusals are the pool's (-32000), as eth_sendRawTransaction's.
      if (request.op !== "submitUnsigned" || e instanceof DevRequestError) throw e;
      throw new TxRejectedError((e as Error).message);
    }),
  );
  channel.handle("pool", () => sequencer.poolContent());
  channel.handle("stop", async () => {
    // The archive closes and the answer is sent whatever NATS does: a publisher that fails or
    // hangs while closing must not keep the node from stopping.
    const closePublisher = () =>
      Promise.race([
        publisher?.close(),
        new Promise((resolve) => setTimeout(resolve, PUBLISHER_CLOSE_MS).unref()),
      ]).catch((e: unknown) => log("warn", "NATS publisher close failed", { err: String(e) }));
    // A fork's upstream reads end first: a block waiting on an upstream that does not answer
    // (frozen, gone) fails now rather than hold the stop until its timeout.
    forked?.reads.close();
    await sequencer.stop();
    await closePublisher();
    // A flush of the last seals that failed is said, not passed over (store/lmdb.ts).
    await env.close().catch((e: unknown) => {
      log("error", "the archive's flush to disk failed", { err: String(e) });
      throw e;
    });
    return null;
  });
  channel.emit("ready", { head: store.headNumber() ?? 0, resumed: stored !== undefined });
  await sequencer.start();
}

// An operator's error (a class with a code, as SchemaMismatchError) keeps its code: one line.
main().catch((e: unknown) =>
  channel.emit(
    "failed",
    isOperatorError(e)
      ? toWire(e)
      : { name: "Error", message: `sequencer failed to start: ${(e as Error).stack ?? String(e)}` },
  ),
);
