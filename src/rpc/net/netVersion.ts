import type { RpcBackend } from "../../services/backend.ts";
import { defineMethod } from "../method.ts";

/** net_version → chain id in decimal. */
export function netVersion(backend: RpcBackend) {
  return defineMethod({ params: [], handler: () => backend.chainId.toString(10) });
}
