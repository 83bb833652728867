// What `dev`, `follow`, `serve` and `replica` share about serving from several reader processes.
import type { FrontendOptions } from "../node/frontend.ts";
import type { NodePlan } from "../node/plan.ts";
import { envName } from "./options.ts";
import { defaultRpcWorkers } from "./optionTable.ts";
import { processRole } from "./processRole.ts";

/**
 * `--rpc-workers` (default one per core, at most 4), which process this is, and what its readers
 * are started with: a generated API key goes to them in their environment (every reader must
 * serve the same dedicated key), given by the primary when it forks them.
 */
export function rpcWorkerPlan(
  values: ReadonlyMap<string, unknown>,
  frontend: FrontendOptions,
): Pick<NodePlan, "rpcWorkers" | "process" | "readerEnv"> {
  const workers = Math.max(
    1,
    (values.get("rpc-workers") as number | undefined) ?? defaultRpcWorkers(),
  );
  const key = [...frontend.apiKeys.keys()][0];
  return {
    rpcWorkers: workers,
    process: processRole(),
    readerEnv:
      workers > 1 && frontend.generatedKey && key !== undefined
        ? { [envName("api-key")]: key }
        : {},
  };
}
