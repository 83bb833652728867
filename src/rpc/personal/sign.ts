import type { RpcBackend } from "../../services/backend.ts";
import { signMessageWith } from "../eth/sign.ts";
import { defineMethod, required } from "../method.ts";
import { parseAddress, parseHexBytes } from "../params.ts";

/** personal_sign(data, address): eth_sign with its arguments the other way round. */
export function personalSign(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseHexBytes), required(parseAddress)],
    handler: ([data, address]) => signMessageWith(backend, address, data),
  });
}
