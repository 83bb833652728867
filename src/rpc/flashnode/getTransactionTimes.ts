import type { RpcBackend } from "../../services/backend.ts";
import { bytesToHex } from "../../util/hex.ts";
import { defineMethod, required } from "../method.ts";
import { parseHash32 } from "../params.ts";
import { txTimesJson } from "./format.ts";

export type GetTransactionTimesResult = ReturnType<typeof txTimesJson> | null;

/**
 * flashnode_getTransactionTimes(hash) → when the sequencer took the transaction, when its
 * flashblock was published (pre-confirmed) and when its block was sealed; null when this node
 * does not hold those times (older than the newest transactions it keeps, seen before it started,
 * or unknown). Times are epoch milliseconds from the sequencer's clock.
 */
export function getTransactionTimes(backend: Pick<RpcBackend, "timeline">) {
  return defineMethod({
    params: [required(parseHash32)],
    handler: ([hash]): GetTransactionTimesResult => {
      const t = backend.timeline?.transaction(bytesToHex(hash));
      return t === undefined ? null : txTimesJson(t);
    },
  });
}
