import type { RpcBackend } from "../../services/backend.ts";
import { ServerError } from "../../services/errors.ts";
import { defineMethod, optional } from "../method.ts";
import { parseBool } from "../params.ts";

/**
 * eth_newPendingTransactionFilter([fullTx]) → filter id: the hashes of transactions as they are
 * pre-confirmed. geth's `fullTx` is accepted; hashes are reported either way.
 */
export function newPendingTransactionFilter(backend: RpcBackend) {
  return defineMethod({
    params: [optional(parseBool)],
    handler: () => {
      if (backend.filters === undefined) throw new ServerError("filters are not served");
      return backend.filters.newPendingTransactionFilter();
    },
  });
}
