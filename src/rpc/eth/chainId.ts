import { quantity } from "../../util/hex.ts";
import type { RpcBackend } from "../backend.ts";
import { defineMethod } from "../method.ts";

/** eth_chainId → chain id. */
export function chainId(backend: RpcBackend) {
  return defineMethod({ params: [], handler: () => quantity(backend.chainId) });
}
