import type { RpcBackend } from "../../services/backend.ts";
import { bytesToHex } from "../../util/hex.ts";
import { NoSignerAvailableError } from "../dev/devControl.ts";
import { defineMethod, required } from "../method.ts";
import { parseAddress, parseHexBytes } from "../params.ts";

/** EIP-191 with a test account's key; impersonated accounts have none (anvil). */
export function signMessageWith(backend: RpcBackend, address: Uint8Array, message: Uint8Array) {
  const signer = backend.signer;
  if (signer === undefined || !signer.canSign(address)) throw new NoSignerAvailableError();
  return bytesToHex(signer.signMessage(address, message));
}

/** eth_sign(address, data) → the 65-byte signature of "\x19Ethereum Signed Message:\n" ‖ len ‖ data. */
export function sign(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseAddress), required(parseHexBytes)],
    handler: ([address, data]) => signMessageWith(backend, address, data),
  });
}
