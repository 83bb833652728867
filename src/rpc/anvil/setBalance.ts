import type { RpcBackend } from "../../services/backend.ts";
import { devControl, parseDevNumber } from "../dev/devControl.ts";
import { defineMethod, required } from "../method.ts";
import { parseAddress } from "../params.ts";

/**
 * anvil_setBalance (hardhat_setBalance) → null: the balance in the block being built, shown in
 * `pending` at once and sealed with it.
 */
export function setBalance(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseAddress), required(parseDevNumber)],
    handler: async ([address, value]) => {
      await devControl(backend, { op: "write", write: { kind: "balance", address, value } });
      return null;
    },
  });
}
