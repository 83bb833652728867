import type { RpcBackend } from "../../services/backend.ts";
import { ServerError } from "../../services/errors.ts";
import { defineMethod } from "../method.ts";

/** eth_newBlockFilter() → filter id: the hashes of blocks sealed from now on. */
export function newBlockFilter(backend: RpcBackend) {
  return defineMethod({
    params: [],
    handler: () => {
      if (backend.filters === undefined) throw new ServerError("filters are not served");
      return backend.filters.newBlockFilter();
    },
  });
}
