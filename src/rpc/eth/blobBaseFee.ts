import type { RpcBackend } from "../../services/backend.ts";
import { quantity } from "../../util/hex.ts";
import { defineMethod } from "../method.ts";
import { headFees } from "./fees.ts";

/**
 * eth_blobBaseFee → the blob base fee at the head, as geth computes it (eip4844.CalcBlobFee of the
 * current header: its excess blob gas priced with its fork's update fraction); null before Cancun.
 */
export function blobBaseFee(backend: RpcBackend) {
  return defineMethod({
    params: [],
    handler: () => {
      const fee = headFees(backend).blobBaseFee;
      return fee === undefined ? null : quantity(fee);
    },
  });
}
