// The sequencer's thread: it owns the archive's write side and the EVM, so block building never
// stalls the thread that answers RPC.
import { parentPort, workerData } from "node:worker_threads";
import { chainSpecFromGenesis } from "../chain/genesis.ts";
import { SEQUENCER_FEE_VAULT } from "../chain/op/config.ts";
import { ensureGenesis, GenesisMismatchError } from "../exec/importer.ts";
import { forwardingLogger } from "../log/logger.ts";
import { type Publisher, startPublisher } from "../replica/publisher.ts";
import { TxRejectedError } from "../services/transactions.ts";
import { createChainStore } from "../store/chainStore.ts";
import { openKvEnv } from "../store/lmdb.ts";
import { isOperatorError } from "../util/errors.ts";
import { hexToBytes } from "../util/hex.ts";
import { tsWorkerData } from "../util/tsWorker.ts";
import { DevRequestError } from "./devRequests.ts";
import type { FromWorker, SequencerWorkerData, ToWorker } from "./protocol.ts";
import { Sequencer } from "./sequencer.ts";

function requirePort(): NonNullable<typeof parentPort> {
  if (parentPort === null) throw new Error("sequencer worker started outside a worker thread");
  return parentPort;
}
const port = requirePort();
const data = tsWorkerData<SequencerWorkerData>(workerData);
const send = (msg: FromWorker) => port.postMessage(msg);
/** How long stopping waits for the NATS publisher to finish its in-flight publish and drain. */
const PUBLISHER_CLOSE_MS = 3_000;

async function main(): Promise<void> {
  const env = openKvEnv(data.datadir);
  const store = createChainStore(env);
  const stored = store.chainConfig();
  if (stored !== undefined && data.genesisGiven && stored !== JSON.stringify(data.genesis)) {
    const chainId = (JSON.parse(stored) as { config?: { chainId?: unknown } }).config?.chainId;
    throw new GenesisMismatchError(
      `${data.datadir} holds a chain from another genesis (chain id ${String(chainId)}, head ${store.headNumber() ?? 0}) than --genesis: drop --genesis to continue that chain, or add --fresh to start over from this genesis`,
    );
  }
  const spec = await chainSpecFromGenesis(stored === undefined ? data.genesis : JSON.parse(stored));
  const executor = await ensureGenesis(spec, store);
  let publisher: Publisher | undefined;
  const sequencer = new Sequencer(
    executor,
    store,
    spec.common.copy(),
    {
      blockTimeMs: data.blockTimeMs,
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
      send({ type: "update", update });
      publisher?.onUpdate(update);
    },
    (level, msg, fields) => send({ type: "log", level, msg, fields }),
  );
  // The RPC thread learns of every accepted transaction (its pool nonces, the log), whether it
  // came through the RPC thread (id > 0) or from a replica over NATS (id 0).
  const submit = (id: number, raw: Uint8Array) =>
    sequencer.submit(raw).then(
      (r) => {
        send({
          type: "submitted",
          id,
          hash: r.hash,
          sender: r.sender,
          nonce: r.nonce,
          nextNonce: r.nextNonce,
        });
        return { hash: r.hash };
      },
      (e: unknown) => {
        throw new TxRejectedError((e as Error).message);
      },
    );
  if (data.nats !== undefined)
    publisher = startPublisher({
      servers: data.nats.servers,
      store,
      streams: data.nats.streams,
      sequencer: { submit: (raw) => submit(0, raw), mine: () => sequencer.mine() },
      logger: forwardingLogger(data.nats.logLevel, (level, msg, fields) =>
        send({ type: "log", level, msg, fields }),
      ),
    });
  sequencer.onBlockCommitted = () => publisher?.blockCommitted();
  /** A request refused: a dev method's refusal keeps its JSON-RPC code. */
  const rejected = (id: number) => (e: unknown) =>
    send({
      type: "rejected",
      id,
      message: (e as Error).message,
      ...(e instanceof DevRequestError ? { rpcCode: e.rpcCode } : {}),
    });
  port.on("message", (msg: ToWorker) => {
    if (msg.type === "submit") {
      submit(msg.id, msg.raw).catch(rejected(msg.id));
    } else if (msg.type === "mine") {
      sequencer
        .mine()
        .then((number) => send({ type: "mined", id: msg.id, number }), rejected(msg.id));
    } else if (msg.type === "control") {
      sequencer
        .control(msg.request)
        .then((answer) => send({ type: "controlled", id: msg.id, answer }), rejected(msg.id));
    } else if (msg.type === "pool") {
      sequencer
        .poolContent()
        .then((content) => send({ type: "pool", id: msg.id, content }), rejected(msg.id));
    } else if (msg.type === "stop") {
      // The archive closes and "stopped" is sent whatever NATS does: a publisher that fails or
      // hangs while closing must not keep the node from stopping.
      const closePublisher = () =>
        Promise.race([
          publisher?.close(),
          new Promise((resolve) => setTimeout(resolve, PUBLISHER_CLOSE_MS).unref()),
        ]).catch((e: unknown) =>
          send({
            type: "log",
            level: "warn",
            msg: "NATS publisher close failed",
            fields: { err: String(e) },
          }),
        );
      void sequencer
        .stop()
        .then(closePublisher)
        .then(() => env.close())
        .then(() => send({ type: "stopped" }));
    }
  });
  send({ type: "ready", head: store.headNumber() ?? 0, resumed: stored !== undefined });
  await sequencer.start();
}

main().catch((e: unknown) =>
  send(
    isOperatorError(e)
      ? { type: "failed", message: e.message, code: e.code }
      : { type: "failed", message: (e as Error).stack ?? String(e) },
  ),
);
