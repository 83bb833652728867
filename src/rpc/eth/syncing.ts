import type { RpcBackend } from "../../services/backend.ts";
import { defineMethod } from "../method.ts";

/** eth_syncing → false: the archive serves what it holds, it never syncs from peers. */
export function syncing(_backend: RpcBackend) {
  return defineMethod({ params: [], handler: () => false });
}
