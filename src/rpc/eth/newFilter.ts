import type { RpcBackend } from "../../services/backend.ts";
import { ServerError } from "../../services/errors.ts";
import { parseInstalledFilterParam } from "../filterCriteria.ts";
import { defineMethod, required } from "../method.ts";

/** eth_newFilter(filter) → filter id: logs from now on (pre-confirmed ones for an open range). */
export function newFilter(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseInstalledFilterParam)],
    reads: "ownBlocks",
    handler: ([criteria]) => {
      if (backend.filters === undefined) throw new ServerError("filters are not served");
      return backend.filters.newLogFilter(criteria);
    },
  });
}
