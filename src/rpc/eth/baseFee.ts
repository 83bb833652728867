import type { RpcBackend } from "../../services/backend.ts";
import { quantity } from "../../util/hex.ts";
import { defineMethod } from "../method.ts";
import { headFees } from "./fees.ts";

/**
 * eth_baseFee → the base fee of the block after the head (geth: eip1559.CalcBaseFee of the
 * current header; the initial 1 gwei when the next block is London's first), null before London.
 */
export function baseFee(backend: RpcBackend) {
  return defineMethod({
    params: [],
    handler: () => {
      const fee = headFees(backend).nextBaseFee;
      return fee === undefined ? null : quantity(fee);
    },
  });
}
