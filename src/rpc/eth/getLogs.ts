import type { RpcBackend } from "../../services/backend.ts";
import { parseFilterParam } from "../filterCriteria.ts";
import { defineMethod, RawJson, required } from "../method.ts";
import { queryLogs } from "./logQuery.ts";

/** eth_getLogs(filter) → the logs it selects (geth's rules; the pre-confirmed block's too). */
export function getLogs(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseFilterParam)],
    reads: "logs",
    handler: ([criteria]) =>
      new RawJson(`[${queryLogs(backend, criteria, backend.logLimits).join(",")}]`),
  });
}
