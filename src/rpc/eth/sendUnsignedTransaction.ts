import type { RpcBackend } from "../../services/backend.ts";
import { RpcError, ServerError } from "../../services/errors.ts";
import { devControl, NoSignerAvailableError } from "../dev/devControl.ts";
import { defineMethod, required } from "../method.ts";
import { fillTransaction, nextBlock, parseTransactionArgs, signed } from "./txDefaults.ts";

/**
 * eth_sendUnsignedTransaction(request) → hash (anvil's): the transaction runs as sent by its
 * `from`, whoever that is and without a key, as for an impersonated account for this one
 * transaction: filled as eth_sendTransaction fills it, given the placeholder signature naming
 * its sender (src/exec/impersonation.ts), taken through the pool's checks (geth's refusals,
 * -32000). No `from`: -32602 `No Signer available`, as anvil.
 */
export function sendUnsignedTransaction(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseTransactionArgs)],
    handler: async ([args]) => {
      const from = args.from;
      const signer = backend.signer;
      if (from === undefined || signer === undefined) throw new NoSignerAvailableError();
      const tx = await fillTransaction(backend, from, args);
      const raw = signed(() => signer.placeholderTransaction(from, tx, nextBlock(backend)));
      try {
        return (await devControl(backend, { op: "submitUnsigned", raw })).hash ?? null;
      } catch (e) {
        throw e instanceof RpcError ? e : new ServerError((e as Error).message);
      }
    },
  });
}
