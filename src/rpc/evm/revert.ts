import type { RpcBackend } from "../../services/backend.ts";
import { devControl, parseDevNumber } from "../dev/devControl.ts";
import { defineMethod, required } from "../method.ts";

/**
 * evm_revert(id) (anvil_revert) → whether the snapshot existed. The archive goes back to its
 * head in one write (sealed blocks too); it and every later snapshot are used up.
 */
export function revert(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseDevNumber)],
    handler: async ([id]) => (await devControl(backend, { op: "revert", id })).reverted === true,
  });
}
