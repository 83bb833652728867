import type { RpcBackend } from "../../services/backend.ts";
import { bytesToHex } from "../../util/hex.ts";
import { devAccounts } from "../dev/devControl.ts";
import { defineMethod } from "../method.ts";

/**
 * eth_accounts (eth_requestAccounts) → the test accounts this chain funds, then the
 * impersonated ones (anvil's list); none on an imported chain until one is impersonated.
 */
export function accounts(backend: RpcBackend) {
  return defineMethod({
    params: [],
    handler: async () => (await devAccounts(backend)).map((a) => bytesToHex(a)),
  });
}
