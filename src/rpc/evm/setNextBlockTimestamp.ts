import type { RpcBackend } from "../../services/backend.ts";
import { devControl, devNumberUpTo, U64_MAX } from "../dev/devControl.ts";
import { defineMethod, required } from "../method.ts";

/**
 * evm_setNextBlockTimestamp(timestamp) (anvil_setNextBlockTimestamp) → null: the next block
 * opened has it (the block being built, while it has no transactions); later ones go on from it.
 */
export function setNextBlockTimestamp(backend: RpcBackend) {
  return defineMethod({
    params: [required(devNumberUpTo(U64_MAX, "timestamp"))],
    handler: async ([timestamp]) => {
      await devControl(backend, { op: "setNextTimestamp", timestamp });
      return null;
    },
  });
}
