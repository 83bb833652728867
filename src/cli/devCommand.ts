// `flashnode dev` (what `npm start` runs). Until the sequencer lands, it imports the bundled
// execution-apis sample chain into --datadir (once) and serves it.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chainSpecFromFile } from "../chain/genesis.ts";
import { applyForkchoiceFile, importChain } from "../chain/importer.ts";
import { startArchiveServer } from "../node/archiveServer.ts";
import { createChainStore } from "../store/chainStore.ts";
import { openKvEnv } from "../store/lmdb.ts";
import { parseFlags, portFlag, stringFlag } from "./args.ts";

const SAMPLE = resolve(dirname(fileURLToPath(import.meta.url)), "../../fixtures/execution-apis");

export const DEV_HELP = `flashnode dev [--datadir DIR] [--host 127.0.0.1] [--port 8545] [--fresh]

Runs a local node. In this version it serves the bundled execution-apis sample chain (54 blocks,
Frontier → Prague), imported into DIR on first start; the sequencer with 200 ms flashblocks
replaces it in the next version.

  --datadir DIR   data directory (default ./.flashnode/dev)   env FLASHNODE_DATADIR
  --host HOST     listen address (default 127.0.0.1)          env FLASHNODE_HOST
  --port PORT     listen port (default 8545)                  env FLASHNODE_PORT
  --fresh         (reserved) start over with an empty datadir
`;

export async function devCommand(argv: string[]): Promise<void> {
  const args = parseFlags(argv, {
    datadir: { type: "string" },
    host: { type: "string" },
    port: { type: "string" },
    fresh: { type: "boolean" },
  });
  const datadir = stringFlag(args, "datadir") ?? join(process.cwd(), ".flashnode", "dev");
  if (!existsSync(join(datadir, "archive"))) {
    console.log(`importing the sample chain into ${datadir} …`);
    const env = openKvEnv(datadir);
    const store = createChainStore(env);
    const spec = await chainSpecFromFile(join(SAMPLE, "genesis.json"));
    await importChain({ spec, store, chainFile: join(SAMPLE, "chain.rlp") });
    applyForkchoiceFile(store, join(SAMPLE, "headfcu.json"));
    await env.close();
  }
  const running = await startArchiveServer({
    datadir,
    host: stringFlag(args, "host") ?? "127.0.0.1",
    port: portFlag(args, "port", 8545),
  });
  console.log(`flashnode dev: serving the sample chain from ${datadir}`);
  console.log(`  JSON-RPC (public): ${running.url}`);
  const stop = () => {
    void running.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
