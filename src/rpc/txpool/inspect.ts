import { toChecksumAddress } from "@ethereumjs/util";
import type { RpcBackend } from "../../services/backend.ts";
import { bytesToHex } from "../../util/hex.ts";
import { defineMethod, RawJson } from "../method.ts";
import { bySender, listed, type PoolEntry, poolOf } from "./pool.ts";

/** geth's one-line summary: "<to>: <value> wei + <gas> gas × <gas price> wei". */
function summary({ tx }: PoolEntry): string {
  // geth's tx.GasPrice(): a 1559-style transaction's fee cap.
  const price = tx.maxFeePerGas ?? tx.gasPrice ?? 0n;
  const cost = `${tx.value} wei + ${tx.gasLimit} gas × ${price} wei`;
  const text =
    tx.to === undefined
      ? `contract creation: ${cost}`
      : `${toChecksumAddress(bytesToHex(tx.to))}: ${cost}`;
  return JSON.stringify(text);
}

/** txpool_inspect → {pending, queued}: sender → nonce → a one-line summary of the transaction. */
export function inspect(backend: RpcBackend) {
  return defineMethod({
    params: [],
    handler: async () => {
      const pool = await poolOf(backend);
      const pending = bySender(listed(backend, pool.pending), summary);
      const queued = bySender(listed(backend, pool.queued), summary);
      return new RawJson(`{"pending":${pending},"queued":${queued}}`);
    },
  });
}
