import type { RpcBackend } from "../../services/backend.ts";
import { devControl } from "../dev/devControl.ts";
import { defineMethod, required } from "../method.ts";
import { parseAddress } from "../params.ts";

/**
 * anvil_impersonateAccount (hardhat_impersonateAccount) → null: eth_sendTransaction from the
 * account runs without a signature (src/exec/impersonation.ts), until stopped.
 */
export function impersonateAccount(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseAddress)],
    handler: async ([address]) => {
      await devControl(backend, { op: "impersonate", address, on: true });
      return null;
    },
  });
}

/** anvil_stopImpersonatingAccount (hardhat_stopImpersonatingAccount) → null. */
export function stopImpersonatingAccount(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseAddress)],
    handler: async ([address]) => {
      await devControl(backend, { op: "impersonate", address, on: false });
      return null;
    },
  });
}
