import type { RpcBackend } from "../../services/backend.ts";
import { quantity } from "../../util/hex.ts";
import { defineMethod } from "../method.ts";
import { nextBaseFee, SUGGESTED_TIP } from "./fees.ts";

/** eth_gasPrice → next base fee + suggested tip (geth's formula). */
export function gasPrice(backend: RpcBackend) {
  return defineMethod({
    params: [],
    handler: () => quantity(nextBaseFee(backend) + SUGGESTED_TIP),
  });
}
