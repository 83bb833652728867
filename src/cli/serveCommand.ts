// `flashnode serve --datadir D`: serve an existing archive read-only.
import { startArchiveServer } from "../node/archiveServer.ts";
import { parseFlags, portFlag, stringFlag, UsageError } from "./args.ts";

export const SERVE_HELP = `flashnode serve --datadir D [--host 127.0.0.1] [--port 8545]

Serves the archive at D over JSON-RPC (HTTP POST /), read-only: no sequencer, no writes.

  --datadir DIR   archive directory (from \`flashnode import\`)   env FLASHNODE_DATADIR
  --host HOST     listen address (default 127.0.0.1)            env FLASHNODE_HOST
  --port PORT     listen port (default 8545; 0 = any free)      env FLASHNODE_PORT
`;

export async function serveCommand(argv: string[]): Promise<void> {
  const args = parseFlags(argv, {
    datadir: { type: "string" },
    host: { type: "string" },
    port: { type: "string" },
  });
  const datadir = stringFlag(args, "datadir");
  if (datadir === undefined) throw new UsageError(`missing --datadir\n\n${SERVE_HELP}`);
  const running = await startArchiveServer({
    datadir,
    host: stringFlag(args, "host") ?? "127.0.0.1",
    port: portFlag(args, "port", 8545),
  });
  console.log(`flashnode serving ${datadir}`);
  console.log(`  JSON-RPC (public): ${running.url}`);
  const stop = () => {
    void running.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
