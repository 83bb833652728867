import type { RpcBackend } from "../../services/backend.ts";
import { devControl, parseDevBool } from "../dev/devControl.ts";
import { defineMethod, required } from "../method.ts";

/**
 * evm_setAutomine(bool) (anvil_setAutomine) → null, as anvil switches: true, a block per
 * transaction (what is pre-confirmed already is sealed at once); false after automine, no
 * mining until evm_mine or evm_setIntervalMining; false otherwise changes nothing.
 */
export function setAutomine(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseDevBool)],
    handler: async ([on]) => {
      await devControl(backend, { op: "setAutomine", on });
      return null;
    },
  });
}
