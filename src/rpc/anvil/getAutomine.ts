import type { RpcBackend } from "../../services/backend.ts";
import { devControl } from "../dev/devControl.ts";
import { defineMethod } from "../method.ts";

/** anvil_getAutomine (hardhat_getAutomine) → whether a block is sealed per transaction. */
export function getAutomine(backend: RpcBackend) {
  return defineMethod({
    params: [],
    handler: async () => (await devControl(backend, { op: "mining" })).automine === true,
  });
}
