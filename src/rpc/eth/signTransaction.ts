import type { RpcBackend } from "../../services/backend.ts";
import { bytesToHex } from "../../util/hex.ts";
import { NoSignerAvailableError } from "../dev/devControl.ts";
import { defineMethod, required } from "../method.ts";
import {
  fillTransaction,
  nextBlock,
  parseTransactionArgs,
  senderOf,
  signed,
} from "./txDefaults.ts";

/**
 * eth_signTransaction(request) → the signed transaction's bytes, filled as eth_sendTransaction
 * fills it, not sent. Only a test account's key signs (not an impersonated account).
 */
export function signTransaction(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseTransactionArgs)],
    handler: async ([args]) => {
      const from = await senderOf(backend, args);
      const signer = backend.signer;
      if (signer === undefined || !signer.canSign(from)) throw new NoSignerAvailableError();
      const tx = await fillTransaction(backend, from, args);
      return bytesToHex(signed(() => signer.signTransaction(from, tx, nextBlock(backend))));
    },
  });
}
