import type { RpcBackend } from "../../services/backend.ts";
import { ServerError } from "../../services/errors.ts";
import type { TransactionSink } from "../../services/transactions.ts";
import { defineMethod, required } from "../method.ts";
import { parseHexBytes } from "../params.ts";

export function transactionSink(backend: RpcBackend): TransactionSink {
  if (backend.transactions === undefined) {
    throw new ServerError("transactions are not accepted by this node (read-only archive)");
  }
  return backend.transactions;
}

/** Deposits (0x7e) come from L1 only, as op-geth refuses them over RPC. */
export function refuseDeposit(raw: Uint8Array): void {
  if (raw[0] === 0x7e) throw new ServerError("transaction type not supported");
}

/** eth_sendRawTransaction(signed bytes) → hash; pre-confirmed in the next flashblock. */
export function sendRawTransaction(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseHexBytes)],
    handler: async ([raw]) => {
      refuseDeposit(raw);
      try {
        return (await transactionSink(backend).submit(raw)).hash;
      } catch (e) {
        // Pool refusals carry geth's texts; they are plain -32000 errors on the wire.
        throw e instanceof ServerError ? e : new ServerError((e as Error).message);
      }
    },
  });
}
