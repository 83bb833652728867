import type { RpcBackend } from "../../services/backend.ts";
import { poolTransactionJson } from "../format/block.ts";
import { defineMethod, RawJson } from "../method.ts";
import { bySender, listed, type PoolEntry, poolOf } from "./pool.ts";

/**
 * txpool_content → {pending, queued}: sender (checksummed) → nonce → transaction, rendered as
 * geth renders a transaction no block holds (block fields null). Pending: not yet in a sealed
 * block and able to run (the pre-confirmed ones among them); queued: behind a nonce gap.
 */
export function content(backend: RpcBackend) {
  return defineMethod({
    params: [],
    handler: async () => {
      const pool = await poolOf(backend);
      const render = (e: PoolEntry) => poolTransactionJson(e.tx, e.from);
      const pending = bySender(listed(backend, pool.pending), render);
      const queued = bySender(listed(backend, pool.queued), render);
      return new RawJson(`{"pending":${pending},"queued":${queued}}`);
    },
  });
}
