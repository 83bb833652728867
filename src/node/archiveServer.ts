// Composition root of `flashnode serve`: a read-only archive behind the JSON-RPC server.
import { existsSync } from "node:fs";
import type { Server } from "node:http";
import { join } from "node:path";
import { chainSpecFromGenesis } from "../chain/genesis.ts";
import { createDispatcher } from "../rpc/dispatch.ts";
import { createMethods } from "../rpc/methods.ts";
import { createRpcServer, listen } from "../rpc/server.ts";
import { createChainStore } from "../store/chainStore.ts";
import { openKvEnv } from "../store/lmdb.ts";
import { createBackend } from "./backendFactory.ts";

export class DatadirError extends Error {
  readonly code = "DATADIR";
}

export type RunningServer = {
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
};

export async function startArchiveServer(opts: {
  readonly datadir: string;
  readonly host: string;
  readonly port: number;
}): Promise<RunningServer> {
  if (!existsSync(join(opts.datadir, "archive"))) {
    throw new DatadirError(`no archive in ${opts.datadir}: run \`flashnode import\` first`);
  }
  const env = openKvEnv(opts.datadir, { readOnly: true });
  const store = createChainStore(env);
  const config = store.chainConfig();
  if (config === undefined || store.headNumber() === undefined) {
    await env.close();
    throw new DatadirError(`the archive in ${opts.datadir} holds no chain yet`);
  }
  const spec = await chainSpecFromGenesis(JSON.parse(config));
  const backend = createBackend(spec, store);
  const dispatcher = createDispatcher(createMethods(backend));
  const server = createRpcServer({ dispatcher });
  const { url } = await listen(server, opts.host, opts.port);
  return {
    url,
    server,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await env.close();
    },
  };
}
