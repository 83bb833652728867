import type { RpcBackend } from "../../services/backend.ts";
import { bytesToHex } from "../../util/hex.ts";
import { transactionPosition } from "../eth/locateTransaction.ts";
import { defineMethod, required } from "../method.ts";
import { parseHash32 } from "../params.ts";

/**
 * debug_getRawTransaction(hash) → the transaction's binary encoding (what eth_sendRawTransaction
 * takes), found as eth_getTransactionByHash finds it (sealed, else pre-confirmed); unknown → "0x",
 * as geth (its nil hexutil.Bytes).
 */
export function getRawTransaction(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseHash32)],
    reads: "transaction",
    handler: ([hash]) => {
      const position = transactionPosition(backend, hash);
      if (position === undefined) return "0x";
      const { target, index } = position;
      let raw: Uint8Array | undefined;
      if (target.kind === "pending") raw = target.block.transactions[index]?.raw;
      else {
        const body = backend.chain.bodyRlp(target.number, target.hash);
        raw = body === undefined ? undefined : backend.decoder.bodyTransactions(body)[index];
      }
      return raw === undefined ? "0x" : bytesToHex(raw);
    },
  });
}
