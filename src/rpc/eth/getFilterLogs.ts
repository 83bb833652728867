import type { RpcBackend } from "../../services/backend.ts";
import { ServerError } from "../../services/errors.ts";
import { defineMethod, RawJson, required } from "../method.ts";
import { parseSubscriptionId } from "../params.ts";
import { queryLogs } from "./logQuery.ts";

/** eth_getFilterLogs(id) → every log a log filter's criteria select (as eth_getLogs). */
export function getFilterLogs(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseSubscriptionId)],
    handler: ([id]) => {
      const criteria = backend.filters?.logCriteria(id);
      if (criteria === undefined) throw new ServerError("filter not found");
      return new RawJson(`[${queryLogs(backend, criteria, backend.logLimits).join(",")}]`);
    },
  });
}
