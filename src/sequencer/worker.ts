// The sequencer's thread: it owns the archive's write side and the EVM, so block building never
// stalls the thread that answers RPC.
import { parentPort, workerData } from "node:worker_threads";
import { chainSpecFromGenesis } from "../chain/genesis.ts";
import { ensureGenesis } from "../chain/importer.ts";
import { isOperatorError } from "../cli/args.ts";
import { createChainStore } from "../store/chainStore.ts";
import { openKvEnv } from "../store/lmdb.ts";
import { hexToBytes } from "../util/hex.ts";
import { tsWorkerData } from "../util/tsWorker.ts";
import type { FromWorker, SequencerWorkerData, ToWorker } from "./protocol.ts";
import { Sequencer } from "./sequencer.ts";

function requirePort(): NonNullable<typeof parentPort> {
  if (parentPort === null) throw new Error("sequencer worker started outside a worker thread");
  return parentPort;
}
const port = requirePort();
const data = tsWorkerData<SequencerWorkerData>(workerData);
const send = (msg: FromWorker) => port.postMessage(msg);

async function main(): Promise<void> {
  const env = openKvEnv(data.datadir);
  const store = createChainStore(env);
  const stored = store.chainConfig();
  const spec = await chainSpecFromGenesis(stored === undefined ? data.genesis : JSON.parse(stored));
  const executor = await ensureGenesis(spec, store);
  const sequencer = new Sequencer(
    executor,
    store,
    spec.common.copy(),
    {
      blockTimeMs: data.blockTimeMs,
      flashblockIntervalMs: data.flashblockIntervalMs,
      gasLimit: BigInt(data.gasLimit),
      coinbase: hexToBytes(data.coinbase),
    },
    (update) => send({ type: "update", update }),
    (level, msg, fields) => send({ type: "log", level, msg, fields }),
  );
  port.on("message", (msg: ToWorker) => {
    if (msg.type === "submit") {
      sequencer.submit(msg.raw).then(
        (r) =>
          send({
            type: "submitted",
            id: msg.id,
            hash: r.hash,
            sender: r.sender,
            nonce: r.nonce,
            nextNonce: r.nextNonce,
          }),
        (e: unknown) => send({ type: "rejected", id: msg.id, message: (e as Error).message }),
      );
    } else if (msg.type === "mine") {
      sequencer.mine().then(
        (number) => send({ type: "mined", id: msg.id, number }),
        (e: unknown) => send({ type: "rejected", id: msg.id, message: (e as Error).message }),
      );
    } else if (msg.type === "stop") {
      void sequencer
        .stop()
        .then(() => env.close())
        .then(() => send({ type: "stopped" }));
    }
  });
  send({ type: "ready", head: store.headNumber() ?? 0 });
  await sequencer.start();
}

main().catch((e: unknown) =>
  send(
    isOperatorError(e)
      ? { type: "failed", message: e.message, code: e.code }
      : { type: "failed", message: (e as Error).stack ?? String(e) },
  ),
);
