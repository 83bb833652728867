import type { RpcBackend } from "../../services/backend.ts";
import { ServerError } from "../../services/errors.ts";
import { isImpersonated, NoSignerAvailableError } from "../dev/devControl.ts";
import { defineMethod, required } from "../method.ts";
import { transactionSink } from "./sendRawTransaction.ts";
import {
  fillTransaction,
  nextBlock,
  parseTransactionArgs,
  senderOf,
  signed,
} from "./txDefaults.ts";

/**
 * eth_sendTransaction(request) → hash: filled as anvil fills it (src/rpc/eth/txDefaults.ts),
 * signed with the test account's key, or, for an impersonated sender, given its placeholder
 * signature (src/exec/impersonation.ts), and taken through the same intake as
 * eth_sendRawTransaction (its refusals are geth's).
 */
export function sendTransaction(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseTransactionArgs)],
    handler: async ([args]) => {
      const sink = transactionSink(backend);
      const from = await senderOf(backend, args);
      const impersonated = await isImpersonated(backend, from);
      const signer = backend.signer;
      if (!impersonated && (signer === undefined || !signer.canSign(from)))
        throw new NoSignerAvailableError();
      const tx = await fillTransaction(backend, from, args);
      const at = nextBlock(backend);
      if (signer === undefined) throw new NoSignerAvailableError();
      const raw = signed(() =>
        impersonated
          ? signer.placeholderTransaction(from, tx, at)
          : signer.signTransaction(from, tx, at),
      );
      try {
        return (await sink.submit(raw)).hash;
      } catch (e) {
        throw e instanceof ServerError ? e : new ServerError((e as Error).message);
      }
    },
  });
}
