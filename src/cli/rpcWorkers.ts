// What `dev`, `serve` and `replica` share about serving from several reader processes.
import type { FrontendOptions } from "../node/frontend.ts";
import { envName } from "./options.ts";
import { defaultRpcWorkers } from "./optionTable.ts";

/**
 * `--rpc-workers` (default one per core, at most 4). With several readers, a generated API key is
 * handed down to them through the environment: every reader must serve the same dedicated key.
 */
export function rpcWorkerCount(
  values: ReadonlyMap<string, unknown>,
  frontend: FrontendOptions,
): number {
  const workers = Math.max(
    1,
    (values.get("rpc-workers") as number | undefined) ?? defaultRpcWorkers(),
  );
  if (workers > 1 && frontend.generatedKey)
    process.env[envName("api-key")] = [...frontend.apiKeys.keys()][0];
  return workers;
}
