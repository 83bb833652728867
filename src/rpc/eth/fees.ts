import type { FeeView } from "../../chain/blockView.ts";
import type { RpcBackend } from "../../services/backend.ts";
import { ServerError } from "../../services/errors.ts";
import { livePending } from "../resolveBlock.ts";

/** The tip suggested to senders (wei): the dev chain never has contention, so a fixed 1 gwei. */
export const SUGGESTED_TIP = 1_000_000_000n;

/** The fee facts of the newest sealed block and of the block after it (geth's CurrentHeader). */
export function headFees(backend: RpcBackend): FeeView {
  const head = backend.chain.headNumber();
  const hash = head === undefined ? undefined : backend.chain.canonicalHash(head);
  const rlp =
    head === undefined || hash === undefined ? undefined : backend.chain.headerRlp(head, hash);
  if (rlp === undefined) throw new ServerError("archive is empty");
  return backend.decoder.fees(rlp);
}

/** The base fee the next transaction will pay: the pending block's, else the one after latest. */
export function nextBaseFee(backend: RpcBackend): bigint {
  const pending = livePending(backend);
  if (pending !== undefined) return pending.base.baseFeePerGas;
  return headFees(backend).nextBaseFee ?? 0n;
}
