import type { RpcBackend } from "../../services/backend.ts";
import { devControl, devNumberUpTo, U64_MAX } from "../dev/devControl.ts";
import { defineMethod, required } from "../method.ts";
import { parseAddress } from "../params.ts";

/** anvil_setNonce (hardhat_setNonce, evm_setAccountNonce) → null; a nonce is 64 bits (geth). */
export function setNonce(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseAddress), required(devNumberUpTo(U64_MAX, "nonce"))],
    handler: async ([address, value]) => {
      await devControl(backend, { op: "write", write: { kind: "nonce", address, value } });
      return null;
    },
  });
}
