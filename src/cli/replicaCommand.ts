// `flashnode replica --nats URL --datadir D`: follow a sequencer through NATS JetStream.

import { createLogger } from "../log/logger.ts";
import { followingView } from "../node/plan.ts";
import { DEFAULT_STREAMS } from "../replica/streams.ts";
import { checkUpstreamUrl, type UpstreamOptions } from "../upstream/options.ts";
import { UsageError } from "../util/errors.ts";
import { checkListenAddress } from "./args.ts";
import { callLimitOptions } from "./callLimitOptions.ts";
import { upstreamFrom } from "./forkOptions.ts";
import { frontendOptions } from "./frontendOptions.ts";
import { helpFor, resolveOptions } from "./options.ts";
import type { OptionValues } from "./optionTable.ts";
import { readerProcessPlan } from "./readerProcesses.ts";
import { runNode } from "./runNode.ts";

/** The replica does not learn the sequencer's interval: dev's default bounds /readyz staleness. */

export const REPLICA_HELP = `flashnode replica --nats URL --datadir D [flags]

Keeps an archive of its own that follows a sequencer (\`flashnode dev --nats URL\`) through NATS
JetStream: every sealed block into D, one write each, and the pending view from the flashblocks.
Serves the same JSON-RPC as the sequencer's node; eth_sendRawTransaction(Sync) and evm_mine are
forwarded to the sequencer and answered with its answer. See docs/replicas.md.

${helpFor("replica")}
`;

export async function replicaCommand(argv: string[]): Promise<void> {
  const { values } = resolveOptions("replica", argv);
  const datadir = values.datadir;
  const nats = values.nats ?? [];
  if (datadir === undefined || nats.length === 0)
    throw new UsageError(
      "flashnode replica needs --nats URL and --datadir D (see flashnode replica --help)",
    );
  const logger = createLogger(values["log-level"]);
  const frontend = frontendOptions(values);
  const readerProcesses = readerProcessPlan(values, frontend);
  if (readerProcesses.process.kind !== "reader")
    await checkListenAddress(frontend.host, frontend.port);
  await runNode({
    role: "replica",
    datadir,
    fresh: false,
    logger,
    frontend,
    ...readerProcesses,
    argv: ["replica", ...argv],
    callLimits: callLimitOptions(values),
    view: followingView({ maxLagBlocks: values["max-lag"] }),
    source: {
      kind: "jetstream",
      servers: nats,
      streams: {
        ...DEFAULT_STREAMS,
        prefix: values["nats-prefix"],
        replicas: values["nats-replicas"],
        snapshotEveryBlocks: values["nats-snapshot-every"],
      },
      verify: values.verify,
      ...forkUpstream(values),
    },
  });
}

/** `--fork-url`: the upstream of a forked sequencer's chain (its state beyond its own writes). */
function forkUpstream(values: OptionValues<"replica">): { forkUpstream?: UpstreamOptions } {
  const url = values["fork-url"];
  if (url === undefined) return {};
  checkUpstreamUrl(url);
  return { forkUpstream: upstreamFrom(url, values) };
}
