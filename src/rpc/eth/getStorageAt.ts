import type { RpcBackend } from "../../services/backend.ts";
import { defineMethod, optional, required } from "../method.ts";
import {
  decodeStorageKey,
  parseAddress,
  parseBlockSelector,
  parseStorageKeyString,
} from "../params.ts";
import { resolveState } from "../resolveBlock.ts";
import { storageWord } from "./storageWord.ts";

/** eth_getStorageAt(address, slot, block = latest) → 32-byte word. */
export function getStorageAt(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseAddress), required(parseStorageKeyString), optional(parseBlockSelector)],
    reads: "state",
    handler: ([address, key, selector]) => {
      // geth resolves the block before it decodes the key: an unknown block wins over a bad key.
      const state = resolveState(backend, selector);
      const slot = decodeStorageKey(key);
      return storageWord(state.storage(address, slot));
    },
  });
}
