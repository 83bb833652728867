// `flashnode replica --nats URL --datadir D`: follow a sequencer through NATS JetStream.
import { DEFAULT_FINALIZED_DEPTH, DEFAULT_SAFE_DEPTH } from "../chain/forkchoice.ts";
import { describePolicy } from "../edge/policy.ts";
import { createLogger } from "../log/logger.ts";
import { isReader, readerCount, readerSlot } from "../node/readerCluster.ts";
import { startReplicaNode } from "../node/replicaNode.ts";
import { startStreamReader } from "../node/streamReader.ts";
import { DEFAULT_STREAMS } from "../replica/streams.ts";
import { UsageError } from "../util/errors.ts";
import { checkListenAddress } from "./args.ts";
import { callLimitOptions } from "./callLimitOptions.ts";
import { frontendOptions } from "./frontendOptions.ts";
import { helpFor, resolveOptions } from "./options.ts";
import { closeOnSignals, rpcWorkerCount } from "./rpcWorkers.ts";

/** The replica does not learn the sequencer's interval: dev's default bounds /readyz staleness. */
const FLASHBLOCK_INTERVAL_MS = 200;

export const REPLICA_HELP = `flashnode replica --nats URL --datadir D [flags]

Keeps an archive of its own that follows a sequencer (\`flashnode dev --nats URL\`) through NATS
JetStream: every sealed block into D, one write each, and the pending view from the flashblocks.
Serves the same JSON-RPC as the sequencer's node; eth_sendRawTransaction(Sync) and evm_mine are
forwarded to the sequencer and answered with its answer. See docs/replicas.md.

${helpFor("replica")}
`;

export async function replicaCommand(argv: string[]): Promise<void> {
  const { values } = resolveOptions("replica", argv);
  const datadir = values.get("datadir") as string | undefined;
  const nats = (values.get("nats") as readonly string[] | undefined) ?? [];
  if (datadir === undefined || nats.length === 0)
    throw new UsageError(
      "flashnode replica needs --nats URL and --datadir D (see flashnode replica --help)",
    );
  const logger = createLogger(values.get("log-level") as string);
  const frontend = frontendOptions(values);
  const maxLagBlocks = values.get("max-lag") as number;
  const callLimits = callLimitOptions(values);
  if (isReader()) {
    // One of the --rpc-workers processes: the primary follows the streams and writes the archive.
    const reader = await startStreamReader({
      datadir,
      frontend,
      logger,
      readers: readerCount(),
      recordsBuilds: readerSlot() === 0,
      safeDepth: DEFAULT_SAFE_DEPTH,
      finalizedDepth: DEFAULT_FINALIZED_DEPTH,
      flashblockIntervalMs: FLASHBLOCK_INTERVAL_MS,
      receipts: "preconfirmed",
      replica: { maxLagBlocks },
      callLimits,
    });
    closeOnSignals(() => reader.close());
    return;
  }
  const workers = rpcWorkerCount(values, frontend);
  await checkListenAddress(frontend.host, frontend.port);
  const node = await startReplicaNode({
    datadir,
    nats,
    streams: {
      ...DEFAULT_STREAMS,
      prefix: values.get("nats-prefix") as string,
      replicas: values.get("nats-replicas") as number,
      snapshotEveryBlocks: values.get("nats-snapshot-every") as number,
    },
    frontend,
    logger,
    flashblockIntervalMs: FLASHBLOCK_INTERVAL_MS,
    // The sequencer's defaults (dev --safe-depth, --finalized-depth).
    safeDepth: DEFAULT_SAFE_DEPTH,
    finalizedDepth: DEFAULT_FINALIZED_DEPTH,
    maxLagBlocks,
    verify: values.get("verify") as boolean,
    callLimits,
    ...(workers > 1 ? { readers: { count: workers, argv: ["replica", ...argv] } } : {}),
  });
  process.stderr.write(
    [
      `flashnode replica of ${nats.join(",")} in ${datadir}${workers > 1 ? ` (${workers} RPC processes)` : ""}`,
      `  JSON-RPC (public):     ${node.url}`,
      `  JSON-RPC (dedicated):  ${node.dedicatedUrl}${frontend.generatedKey ? "   (key generated for this run; set --api-key)" : ""}`,
      `  Metrics:               ${node.url}metrics`,
      `  Live page:             ${node.url}ui`,
      `  ${describePolicy(frontend.policy)}`,
      "",
    ].join("\n"),
  );
  closeOnSignals(() => node.close());
}
