import type { RpcBackend } from "../../services/backend.ts";
import { devControl, devNumberUpTo } from "../dev/devControl.ts";
import { defineMethod, required } from "../method.ts";

/** Seconds a timestamp can be moved by in one call (anvil's i64 result). */
const MAX_SECONDS = (1n << 63n) - 1n;

/**
 * evm_increaseTime(seconds) (anvil_increaseTime) → the clock's whole offset in seconds (a JSON
 * number, as anvil answers). The block being built takes it at once while it has no
 * transactions; otherwise the next block does.
 */
export function increaseTime(backend: RpcBackend) {
  return defineMethod({
    params: [required(devNumberUpTo(MAX_SECONDS, "seconds"))],
    handler: async ([seconds]) =>
      Number((await devControl(backend, { op: "increaseTime", seconds })).offset ?? 0n),
  });
}
