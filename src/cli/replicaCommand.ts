// `flashnode replica --nats URL --datadir D`: follow a sequencer through NATS JetStream.
import { DEFAULT_FINALIZED_DEPTH, DEFAULT_SAFE_DEPTH } from "../chain/forkchoice.ts";
import { createLogger } from "../log/logger.ts";
import { DEFAULT_STREAMS } from "../replica/streams.ts";
import {
  checkUpstreamUrl,
  parseUpstreamHeader,
  type UpstreamOptions,
  upstreamOptions,
} from "../upstream/options.ts";
import { UsageError } from "../util/errors.ts";
import { checkListenAddress } from "./args.ts";
import { callLimitOptions } from "./callLimitOptions.ts";
import { frontendOptions } from "./frontendOptions.ts";
import { helpFor, parseDuration, resolveOptions } from "./options.ts";
import { rpcWorkerPlan } from "./rpcWorkers.ts";
import { runNode } from "./runNode.ts";

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
  const workers = rpcWorkerPlan(values, frontend);
  if (workers.process.kind !== "reader") await checkListenAddress(frontend.host, frontend.port);
  await runNode({
    role: "replica",
    datadir,
    fresh: false,
    logger,
    frontend,
    ...workers,
    argv: ["replica", ...argv],
    callLimits: callLimitOptions(values),
    view: {
      receipts: "preconfirmed",
      // The sequencer's defaults (dev --safe-depth, --finalized-depth).
      forkchoice: {
        kind: "trailing",
        safe: DEFAULT_SAFE_DEPTH,
        finalized: DEFAULT_FINALIZED_DEPTH,
      },
      flashblockIntervalMs: FLASHBLOCK_INTERVAL_MS,
      maxLagBlocks: values.get("max-lag") as number,
    },
    source: {
      kind: "jetstream",
      servers: nats,
      streams: {
        ...DEFAULT_STREAMS,
        prefix: values.get("nats-prefix") as string,
        replicas: values.get("nats-replicas") as number,
        snapshotEveryBlocks: values.get("nats-snapshot-every") as number,
      },
      verify: values.get("verify") as boolean,
      ...forkUpstream(values),
    },
  });
}

/** `--fork-url`: the upstream of a forked sequencer's chain (its state beyond its own writes). */
function forkUpstream(values: ReadonlyMap<string, unknown>): { forkUpstream?: UpstreamOptions } {
  const url = values.get("fork-url") as string | undefined;
  if (url === undefined) return {};
  checkUpstreamUrl(url);
  const headers = (values.get("fork-header") as readonly string[] | undefined) ?? [];
  return {
    forkUpstream: upstreamOptions(url, {
      headers: Object.fromEntries(headers.map(parseUpstreamHeader)),
      retries: values.get("fork-retries") as number,
      retryBackoffMs: parseDuration("fork-retry-backoff", values.get("fork-retry-backoff"), "ms"),
      timeoutMs: parseDuration("fork-timeout", values.get("fork-timeout"), "ms"),
    }),
  };
}
