// What `dev`, `follow`, `serve` and `replica` share about serving from several reader processes.
import type { FrontendOptions } from "../node/frontend.ts";
import type { NodePlan } from "../node/plan.ts";
import { envName } from "./options.ts";
import type { OptionValues } from "./optionTable.ts";
import type { NodeCommand } from "./optionTypes.ts";
import { processRole } from "./processRole.ts";

/**
 * `--rpc-workers` (its default in the option table), which process this is, and what its readers
 * are started with: a generated API key goes to them in their environment (every reader must
 * serve the same dedicated key), given by the primary when it forks them.
 */
export function readerProcessPlan(
  values: OptionValues<NodeCommand>,
  frontend: FrontendOptions,
): Pick<NodePlan, "readerProcesses" | "process" | "readerEnv"> {
  const readers = Math.max(1, values["rpc-workers"]);
  const key = [...frontend.apiKeys.keys()][0];
  return {
    readerProcesses: readers,
    process: processRole(),
    readerEnv:
      readers > 1 && frontend.generatedKey && key !== undefined
        ? { [envName("api-key")]: key }
        : {},
  };
}
