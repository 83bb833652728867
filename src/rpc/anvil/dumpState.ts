import { anvilStateJson, gzipState } from "../../chain/anvilState.ts";
import type { RpcBackend } from "../../services/backend.ts";
import { bytesToHex } from "../../util/hex.ts";
import { devControl, parseDevBool } from "../dev/devControl.ts";
import { defineMethod, optional } from "../method.ts";

/**
 * anvil_dumpState(preserveHistoricalStates?) (hardhat_dumpState) → the chain's state as anvil's
 * state JSON, gzipped, hex: every account as the chain has it with what is pre-confirmed (and
 * everything sent before the call), the head's block environment and header. The flag is taken
 * and has no effect: historical states are served by the archive, not carried in a dump.
 */
export function dumpState(backend: RpcBackend) {
  return defineMethod({
    params: [optional(parseDevBool)],
    handler: async () => {
      const { state } = await devControl(backend, { op: "dumpState" });
      if (state === undefined) return null;
      return bytesToHex(gzipState(anvilStateJson(state)));
    },
  });
}
