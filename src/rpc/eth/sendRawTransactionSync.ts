import type { RpcBackend } from "../../services/backend.ts";
import { InvalidParamsError, RpcError, ServerError } from "../../services/errors.ts";
import { hexToBytes } from "../../util/hex.ts";
import { defineMethod, optional, required } from "../method.ts";
import { parseHexBytes, parseUint64 } from "../params.ts";
import { getTransactionReceipt } from "./getTransactionReceipt.ts";
import { refuseDeposit, transactionSink } from "./sendRawTransaction.ts";

/** Default and maximum wait, as Base caps eth_sendRawTransactionSync (6 s). */
export const TX_SYNC_DEFAULT_TIMEOUT_MS = 6_000;
export const TX_SYNC_MAX_TIMEOUT_MS = 60_000;
/** geth's errCodeTxSyncTimeout. */
export const TX_SYNC_TIMEOUT_CODE = 4;

/** geth takes a JSON number (`*uint64`); a hex quantity is accepted too. */
function parseTimeout(raw: unknown): bigint {
  if (typeof raw === "number" && Number.isInteger(raw) && raw >= 0) return BigInt(raw);
  if (typeof raw === "number")
    throw new InvalidParamsError(
      `json: cannot unmarshal number ${raw} into Go value of type uint64`,
    );
  return parseUint64(raw);
}

function goDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : ms > 1000 ? `${ms / 1000}s` : `${ms}ms`;
}

/**
 * eth_sendRawTransactionSync(signed bytes, timeoutMs?) (EIP-7966) → the receipt as soon as the
 * transaction is pre-confirmed; code 4 with the hash as data if it is not within the timeout.
 */
export function sendRawTransactionSync(backend: RpcBackend) {
  const receipt = getTransactionReceipt(backend);
  return defineMethod({
    params: [required(parseHexBytes), optional(parseTimeout)],
    handler: async ([raw, timeout], ctx) => {
      refuseDeposit(raw);
      const sink = transactionSink(backend);
      let hash: string;
      try {
        hash = (await sink.submit(raw)).hash;
      } catch (e) {
        throw e instanceof ServerError ? e : new ServerError((e as Error).message);
      }
      const requested =
        timeout === undefined || timeout === 0n ? TX_SYNC_DEFAULT_TIMEOUT_MS : Number(timeout);
      const ms = Math.min(requested, TX_SYNC_MAX_TIMEOUT_MS);
      const hashBytes = hexToBytes(hash);
      const lookup = () => receipt.handler([hashBytes], ctx);
      const found = await lookup();
      if (found !== null) return found;
      if (await sink.waitForReceipt(hashBytes, ms)) {
        const r = await lookup();
        if (r !== null) return r;
      }
      throw new RpcError(
        TX_SYNC_TIMEOUT_CODE,
        `The transaction was added to the transaction pool but wasn't processed in ${goDuration(ms)}`,
        hash,
      );
    },
  });
}
