import type { RpcBackend } from "../../services/backend.ts";
import { quantity } from "../../util/hex.ts";
import { devControl } from "../dev/devControl.ts";
import { defineMethod } from "../method.ts";

/**
 * evm_snapshot (anvil_snapshot) → its id: the head and the pre-confirmed part of the block on it,
 * with everything sent before the call.
 */
export function snapshot(backend: RpcBackend) {
  return defineMethod({
    params: [],
    handler: async () => quantity((await devControl(backend, { op: "snapshot" })).id ?? 0n),
  });
}
