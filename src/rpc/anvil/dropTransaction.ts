import type { RpcBackend } from "../../services/backend.ts";
import { bytesToHex } from "../../util/hex.ts";
import { devControl } from "../dev/devControl.ts";
import { defineMethod, required } from "../method.ts";
import { parseHash32 } from "../params.ts";

/**
 * anvil_dropTransaction(hash) (hardhat_dropTransaction) → the hash, or null when no transaction
 * of that hash waits (anvil's answer). One not yet sealed leaves the pool, or the block being
 * built, which is rebuilt without it (the stream says it was replaced); its sender's later
 * transactions wait in the pool for the nonce gap to fill, as anvil's do.
 */
export function dropTransaction(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseHash32)],
    handler: async ([hash]) =>
      (await devControl(backend, { op: "dropTransaction", hash })).dropped === true
        ? bytesToHex(hash)
        : null,
  });
}
