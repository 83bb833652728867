import type { RpcBackend } from "../../services/backend.ts";
import { devControl, parseDevNumber } from "../dev/devControl.ts";
import { defineMethod, required } from "../method.ts";
import { parseAddress, parseHash32 } from "../params.ts";

function slotBytes(n: bigint): Uint8Array {
  return Buffer.from(n.toString(16).padStart(64, "0"), "hex");
}

/** anvil_setStorageAt(address, slot, 32-byte value) (hardhat_setStorageAt) → true. */
export function setStorageAt(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseAddress), required(parseDevNumber), required(parseHash32)],
    handler: async ([address, slot, value]) => {
      await devControl(backend, {
        op: "write",
        write: { kind: "storage", address, slot: slotBytes(slot), value },
      });
      return true;
    },
  });
}
