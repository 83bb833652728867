import type { RpcBackend } from "../../services/backend.ts";
import { ServerError } from "../../services/errors.ts";
import { defineMethod, RawJson, required } from "../method.ts";
import { parseSubscriptionId } from "../params.ts";

/** eth_getFilterChanges(id) → what the filter gathered since the last poll (logs or hashes). */
export function getFilterChanges(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseSubscriptionId)],
    handler: ([id]) => {
      const items = backend.filters?.changes(id);
      if (items === undefined) throw new ServerError("filter not found");
      return new RawJson(`[${items.join(",")}]`);
    },
  });
}
