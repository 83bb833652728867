import type { RpcBackend } from "../../services/backend.ts";
import { devControl, parseDevBool } from "../dev/devControl.ts";
import { defineMethod, required } from "../method.ts";

/** anvil_autoImpersonateAccount(bool) (hardhat_autoImpersonateAccount) → null: every sender. */
export function autoImpersonateAccount(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseDevBool)],
    handler: async ([on]) => {
      await devControl(backend, { op: "autoImpersonate", on });
      return null;
    },
  });
}
