// `flashnode serve --datadir D`: serve an existing archive read-only.
import { createLogger } from "../log/logger.ts";
import { assertArchive } from "../node/sources/archiveSource.ts";
import { UsageError } from "../util/errors.ts";
import { checkListenAddress } from "./args.ts";
import { callLimitOptions } from "./callLimitOptions.ts";
import { frontendOptions } from "./frontendOptions.ts";
import { helpFor, resolveOptions } from "./options.ts";
import { readerProcessPlan } from "./readerProcesses.ts";
import { runNode } from "./runNode.ts";

// `flashnode serve --datadir D`: serve an existing archive read-only.

export const SERVE_HELP = `flashnode serve --datadir D [flags]

Serves the archive at D over JSON-RPC (public POST /, dedicated POST /rpc/<key>, and the same
over WebSocket), read-only: no sequencer, no writes; eth_subscribe has nothing to notify.

${helpFor("serve")}
`;

export async function serveCommand(argv: string[]): Promise<void> {
  const { values } = resolveOptions("serve", argv);
  const datadir = values.datadir;
  if (datadir === undefined)
    throw new UsageError(
      "missing --datadir: flashnode serve --datadir D (see flashnode serve --help)",
    );
  const logger = createLogger(values["log-level"]);
  const frontend = frontendOptions(values);
  const readerProcesses = readerProcessPlan(values, frontend);
  if (readerProcesses.process.kind !== "reader") {
    // Checked here, once, before any reader starts: the same one-line errors however many serve.
    assertArchive(datadir);
    await checkListenAddress(frontend.host, frontend.port);
  }
  await runNode({
    role: "serve",
    datadir,
    fresh: false,
    logger,
    frontend,
    ...readerProcesses,
    argv: ["serve", ...argv],
    callLimits: callLimitOptions(values),
    // safe and finalized as the import's forkchoice stored them.
    view: { receipts: "preconfirmed", forkchoice: { kind: "stored" }, flashblockIntervalMs: 0 },
    source: { kind: "archive" },
  });
}
