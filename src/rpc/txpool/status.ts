import type { RpcBackend } from "../../services/backend.ts";
import { quantity } from "../../util/hex.ts";
import { defineMethod } from "../method.ts";
import { poolOf } from "./pool.ts";

/** txpool_status → {pending, queued}: how many of each (blob transactions counted, as geth). */
export function status(backend: RpcBackend) {
  return defineMethod({
    params: [],
    handler: async () => {
      const pool = await poolOf(backend);
      return { pending: quantity(pool.pending.length), queued: quantity(pool.queued.length) };
    },
  });
}
