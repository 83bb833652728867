import type { RpcBackend } from "../../services/backend.ts";
import { poolTransactionJson } from "../format/block.ts";
import { defineMethod, RawJson, required } from "../method.ts";
import { parseAddress } from "../params.ts";
import { byNonce, fromSender, listed, type PoolEntry, poolOf } from "./pool.ts";

/** txpool_contentFrom(address) → {pending, queued}: that sender's transactions, by nonce. */
export function contentFrom(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseAddress)],
    handler: async ([address]) => {
      const pool = await poolOf(backend);
      const render = (e: PoolEntry) => poolTransactionJson(e.tx, e.from);
      const pending = byNonce(fromSender(listed(backend, pool.pending), address), render);
      const queued = byNonce(fromSender(listed(backend, pool.queued), address), render);
      return new RawJson(`{"pending":${pending},"queued":${queued}}`);
    },
  });
}
