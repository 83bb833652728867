// Composition root of `flashnode serve`: a read-only archive behind the JSON-RPC frontend.
import { existsSync } from "node:fs";
import type { Server } from "node:net";
import { join } from "node:path";
import { chainSpecFromGenesis } from "../chain/genesis.ts";
import { CallClient } from "../exec/callClient.ts";
import type { CallLimits } from "../exec/callLimits.ts";
import type { Logger } from "../log/logger.ts";
import { createMethods } from "../rpc/methods.ts";
import { createChainStore } from "../store/chainStore.ts";
import { openKvEnv } from "../store/lmdb.ts";
import { createBackend } from "./backendFactory.ts";
import { type FrontendOptions, startFrontend } from "./frontend.ts";
import { storeReadiness } from "./readiness.ts";

export class DatadirError extends Error {
  readonly code = "DATADIR";
}

export type RunningServer = {
  readonly url: string;
  readonly dedicatedUrl: string;
  readonly server: Server;
  close(): Promise<void>;
};

/** The datadir holds an archive (else the operator is told to import one first). */
export function assertArchive(datadir: string): void {
  if (!existsSync(join(datadir, "archive"))) {
    throw new DatadirError(`no archive in ${datadir}: run \`flashnode import\` first`);
  }
}

export async function startArchiveServer(opts: {
  readonly datadir: string;
  readonly frontend: FrontendOptions;
  readonly logger: Logger;
  /** Set in a reader process of a node served by this many (`--rpc-workers`). */
  readonly readers?: number;
  /** --rpc-gascap, --rpc-evmtimeout (geth's defaults when absent). */
  readonly callLimits?: CallLimits;
}): Promise<RunningServer> {
  assertArchive(opts.datadir);
  const env = openKvEnv(opts.datadir, { readOnly: true });
  const store = createChainStore(env);
  const config = store.chainConfig();
  if (config === undefined || store.headNumber() === undefined) {
    await env.close();
    throw new DatadirError(`the archive in ${opts.datadir} holds no chain yet`);
  }
  const spec = await chainSpecFromGenesis(JSON.parse(config));
  // Calls (eth_call, eth_estimateGas) at any block of the archive, off the RPC thread.
  const calls = await CallClient.start(
    {
      datadir: opts.datadir,
      readOnly: true,
      ...(opts.callLimits === undefined ? {} : { limits: opts.callLimits }),
    },
    opts.logger,
  );
  let frontend: Awaited<ReturnType<typeof startFrontend>>;
  try {
    frontend = await startFrontend({
      options: opts.frontend,
      methods: createMethods(createBackend(spec, store, { calls })),
      feed: undefined,
      logger: opts.logger,
      ...(opts.readers === undefined ? {} : { readers: opts.readers }),
      metricsSources: { head: () => store.headNumber(), storeSizeBytes: () => env.sizeOnDisk() },
      health: () => {
        const reasons = storeReadiness(env, store);
        return { live: true, ready: reasons.length === 0, reasons };
      },
    });
  } catch (e) {
    await calls.stop();
    await env.close();
    throw e;
  }
  return {
    url: frontend.url,
    dedicatedUrl: frontend.dedicatedUrl,
    server: frontend.server,
    async close() {
      await frontend.close();
      await calls.stop();
      await env.close();
    },
  };
}
