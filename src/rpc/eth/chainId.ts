import type { RpcBackend } from "../../services/backend.ts";
import { quantity } from "../../util/hex.ts";
import { defineMethod } from "../method.ts";

/** eth_chainId → chain id. */
export function chainId(backend: RpcBackend) {
  return defineMethod({ params: [], handler: () => quantity(backend.chainId) });
}
