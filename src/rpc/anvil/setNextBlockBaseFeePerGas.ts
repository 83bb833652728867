import type { RpcBackend } from "../../services/backend.ts";
import { devControl, devNumberUpTo, U64_MAX } from "../dev/devControl.ts";
import { defineMethod, required } from "../method.ts";

/**
 * anvil_setNextBlockBaseFeePerGas(wei) (hardhat_setNextBlockBaseFeePerGas) → null: the base fee
 * of the block being built, which is rebuilt with it at once (with what it pre-confirmed: a
 * transaction whose fee cap is now below it goes back to the pool), until it seals; the blocks
 * after it follow EIP-1559 from it. Such a block fails a strict import's base-fee check (the
 * header's base fee is not its parent's next), as anvil's would.
 */
export function setNextBlockBaseFeePerGas(backend: RpcBackend) {
  return defineMethod({
    params: [required(devNumberUpTo(U64_MAX, "base fee"))],
    handler: async ([baseFee]) => {
      await devControl(backend, { op: "setNextBaseFee", baseFee });
      return null;
    },
  });
}
