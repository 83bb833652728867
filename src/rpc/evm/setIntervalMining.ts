import type { RpcBackend } from "../../services/backend.ts";
import { devControl, devNumberUpTo } from "../dev/devControl.ts";
import { defineMethod, required } from "../method.ts";

/** A block time anvil takes (u64 seconds) that a millisecond timer still holds. */
const MAX_SECONDS = BigInt(Math.floor(2 ** 31 / 1000));

/**
 * evm_setIntervalMining(seconds) (anvil_setIntervalMining) → null: a block sealed every
 * `seconds` (automine off), as anvil; 0 stops mining (blocks only by evm_mine). Flashblocks go
 * on every --flashblock-interval in every mode.
 */
export function setIntervalMining(backend: RpcBackend) {
  return defineMethod({
    params: [required(devNumberUpTo(MAX_SECONDS, "seconds"))],
    handler: async ([seconds]) => {
      await devControl(backend, { op: "setIntervalMining", seconds });
      return null;
    },
  });
}
