import type { RpcBackend } from "../../services/backend.ts";
import { devControl } from "../dev/devControl.ts";
import { defineMethod } from "../method.ts";

/**
 * anvil_getIntervalMining → interval mining's block time in seconds (a JSON number: a fraction
 * for a --block-time below a second), or null when there is none (automine, or no mining).
 */
export function getIntervalMining(backend: RpcBackend) {
  return defineMethod({
    params: [],
    handler: async () => {
      const { intervalMs } = await devControl(backend, { op: "mining" });
      return intervalMs === undefined ? null : intervalMs / 1000;
    },
  });
}
