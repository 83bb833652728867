// `flashnode serve --datadir D`: serve an existing archive read-only.

import { describePolicy } from "../edge/policy.ts";
import type { CallLimits } from "../exec/callLimits.ts";
import { createLogger, type Logger } from "../log/logger.ts";
import { assertArchive, startArchiveServer } from "../node/archiveServer.ts";
import type { FrontendOptions } from "../node/frontend.ts";
import { isReader, readerCount, startReaderCluster } from "../node/readerCluster.ts";
import { UsageError } from "../util/errors.ts";
import { checkListenAddress } from "./args.ts";
import { callLimitOptions } from "./callLimitOptions.ts";
import { frontendOptions } from "./frontendOptions.ts";
import { helpFor, resolveOptions } from "./options.ts";
import { closeOnSignals, rpcWorkerCount } from "./rpcWorkers.ts";

export const SERVE_HELP = `flashnode serve --datadir D [flags]

Serves the archive at D over JSON-RPC (public POST /, dedicated POST /rpc/<key>), read-only:
no sequencer, no writes.

${helpFor("serve")}
`;

export async function serveCommand(argv: string[]): Promise<void> {
  const { values } = resolveOptions("serve", argv);
  const datadir = values.get("datadir") as string | undefined;
  if (datadir === undefined)
    throw new UsageError(
      "missing --datadir: flashnode serve --datadir D (see flashnode serve --help)",
    );
  const logger = createLogger(values.get("log-level") as string);
  const frontend = frontendOptions(values);
  const callLimits = callLimitOptions(values);
  if (isReader()) return serveAsReader(datadir, frontend, logger, callLimits);
  const workers = rpcWorkerCount(values, frontend);
  // Checked here, once, before any reader starts: the same one-line errors however many serve.
  assertArchive(datadir);
  await checkListenAddress(frontend.host, frontend.port);
  let url: string;
  let dedicatedUrl: string;
  let close: () => Promise<void>;
  if (workers === 1) {
    const running = await startArchiveServer({ datadir, frontend, logger, callLimits });
    ({ url, dedicatedUrl } = running);
    close = () => running.close();
  } else {
    const readers = await startReaderCluster({
      readers: workers,
      argv: ["serve", ...argv],
      logger,
    });
    ({ url, dedicatedUrl } = readers);
    close = () => readers.close();
  }
  process.stderr.write(
    [
      `flashnode serving ${datadir}${workers > 1 ? ` (${workers} RPC processes)` : ""}`,
      `  JSON-RPC (public):     ${url}`,
      `  JSON-RPC (dedicated):  ${dedicatedUrl}${frontend.generatedKey ? "   (key generated for this run; set --api-key)" : ""}`,
      `  Metrics:               ${url}metrics`,
      `  Live page:             ${url}ui`,
      `  ${describePolicy(frontend.policy)}`,
      "",
    ].join("\n"),
  );
  closeOnSignals(close);
}

/** One of the --rpc-workers processes: the archive server, sharing limits and metrics. */
async function serveAsReader(
  datadir: string,
  frontend: FrontendOptions,
  logger: Logger,
  callLimits: CallLimits,
) {
  const running = await startArchiveServer({
    datadir,
    frontend,
    logger,
    readers: readerCount(),
    callLimits,
  });
  closeOnSignals(() => running.close());
}
