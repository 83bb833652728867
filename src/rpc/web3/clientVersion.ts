import type { RpcBackend } from "../../services/backend.ts";
import { defineMethod } from "../method.ts";

/** web3_clientVersion → name/version/platform. */
export function clientVersion(backend: RpcBackend) {
  return defineMethod({ params: [], handler: () => backend.clientVersion });
}
