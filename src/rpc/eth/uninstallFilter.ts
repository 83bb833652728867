import type { RpcBackend } from "../../services/backend.ts";
import { defineMethod, required } from "../method.ts";
import { parseSubscriptionId } from "../params.ts";

/** eth_uninstallFilter(id) → whether a filter was removed. */
export function uninstallFilter(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseSubscriptionId)],
    handler: ([id]) => backend.filters?.uninstall(id) ?? false,
  });
}
