import {
  type LoadedState,
  parseAnvilState,
  StateFileError,
  stateJsonFromBytes,
} from "../../chain/anvilState.ts";
import type { RpcBackend } from "../../services/backend.ts";
import { InvalidParamsError } from "../../services/errors.ts";
import { devControl, parseDevBytes } from "../dev/devControl.ts";
import { defineMethod, required } from "../method.ts";

/** The state anvil_loadState is given: anvil's state JSON, gzipped (anvil_dumpState's) or not. */
export function parseStateBytes(raw: unknown): LoadedState {
  try {
    return parseAnvilState(stateJsonFromBytes(parseDevBytes(raw)));
  } catch (e) {
    if (!(e instanceof StateFileError)) throw e;
    // anvil's text, with what was wrong.
    throw new InvalidParamsError(
      e.message === "Failed to decode state dump"
        ? e.message
        : `Failed to decode state dump: ${e.message}`,
    );
  }
}

/**
 * anvil_loadState(bytes) (hardhat_loadState) → true: the state's accounts merged into the chain
 * as anvil merges them (balance and code replaced, the larger nonce, each slot given set),
 * written into the block being built as anvil_setBalance & co. write (with automine, sealed at
 * once); the clock goes on from the state's block time when that is later.
 */
export function loadState(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseStateBytes)],
    handler: async ([state]) => {
      await devControl(backend, { op: "loadState", state });
      return true;
    },
  });
}
