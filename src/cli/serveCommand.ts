// `flashnode serve --datadir D`: serve an existing archive read-only.
import { createLogger } from "../log/logger.ts";
import { startArchiveServer } from "../node/archiveServer.ts";
import { frontendOptions } from "../node/frontend.ts";
import { UsageError } from "./args.ts";
import { helpFor, resolveOptions } from "./options.ts";

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
  const running = await startArchiveServer({ datadir, frontend, logger });
  process.stderr.write(
    [
      `flashnode serving ${datadir}`,
      `  JSON-RPC (public):     ${running.url}`,
      `  JSON-RPC (dedicated):  ${running.dedicatedUrl}${frontend.generatedKey ? "   (key generated for this run; set --api-key)" : ""}`,
      `  Metrics:               ${running.url}metrics`,
      "",
    ].join("\n"),
  );
  const stop = () => {
    void running.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
