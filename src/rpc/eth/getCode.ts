import type { RpcBackend } from "../../services/backend.ts";
import { bytesToHex } from "../../util/hex.ts";
import { defineMethod, optional, required } from "../method.ts";
import { parseAddress, parseBlockSelector } from "../params.ts";
import { resolveState } from "../resolveBlock.ts";

/** eth_getCode(address, block = latest) → bytecode ("0x" for none). */
export function getCode(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseAddress), optional(parseBlockSelector)],
    reads: "state",
    handler: ([address, selector]) => {
      const state = resolveState(backend, selector);
      const codeHash = state.account(address)?.codeHash;
      if (codeHash === undefined) return "0x";
      return bytesToHex(state.code(codeHash) ?? new Uint8Array(0));
    },
  });
}
