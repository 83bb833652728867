import type { RpcBackend } from "../../services/backend.ts";
import { devControl, parseDevBytes } from "../dev/devControl.ts";
import { defineMethod, required } from "../method.ts";
import { parseAddress } from "../params.ts";

/** anvil_setCode (hardhat_setCode) → null; empty code removes it. */
export function setCode(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseAddress), required(parseDevBytes)],
    handler: async ([address, code]) => {
      await devControl(backend, { op: "write", write: { kind: "code", address, code } });
      return null;
    },
  });
}
