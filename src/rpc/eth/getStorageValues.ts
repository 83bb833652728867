import type { RpcBackend } from "../../services/backend.ts";
import { ClientLimitExceededError, InvalidParamsError } from "../../services/errors.ts";
import { bytesToHex } from "../../util/hex.ts";
import { defineMethod, optional, required } from "../method.ts";
import { parseAddress, parseBlockSelector, parseHash32 } from "../params.ts";
import { resolveState } from "../resolveBlock.ts";
import { storageWord } from "./storageWord.ts";

/** geth's cap on the total number of slots in one call. */
export const MAX_STORAGE_VALUES_SLOTS = 1024;

type StorageRequest = ReadonlyArray<readonly [address: Uint8Array, slots: Uint8Array[]]>;

function parseRequest(raw: unknown): StorageRequest {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new InvalidParamsError(
      `json: cannot unmarshal ${Array.isArray(raw) ? "array" : typeof raw === "string" ? "string" : raw === null ? "null" : "number"} into Go value of type map[common.Address][]common.Hash`,
    );
  }
  const out: [Uint8Array, Uint8Array[]][] = [];
  for (const [key, slots] of Object.entries(raw)) {
    const address = parseAddress(key);
    if (!Array.isArray(slots)) {
      throw new InvalidParamsError(
        "json: cannot unmarshal non-array into Go value of type []common.Hash",
      );
    }
    out.push([address, slots.map(parseHash32)]);
  }
  return out;
}

/** eth_getStorageValues({address: [slots]}, block = latest) → {address: [32-byte words]}. */
export function getStorageValues(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseRequest), optional(parseBlockSelector)],
    reads: "state",
    handler: ([request, selector]) => {
      let total = 0;
      for (const [, slots] of request) {
        total += slots.length;
        if (total > MAX_STORAGE_VALUES_SLOTS) {
          throw new ClientLimitExceededError(`too many slots (max ${MAX_STORAGE_VALUES_SLOTS})`);
        }
      }
      if (total === 0) throw new InvalidParamsError("empty request");
      const state = resolveState(backend, selector);
      const result: Record<string, string[]> = {};
      for (const [address, slots] of request) {
        result[bytesToHex(address)] = slots.map((slot) =>
          storageWord(state.storage(address, slot)),
        );
      }
      return result;
    },
  });
}
