import type { RpcBackend } from "../backend.ts";
import { transactionSink } from "../eth/sendRawTransaction.ts";
import { defineMethod, optional } from "../method.ts";

function parseIgnored(raw: unknown): unknown {
  return raw;
}

/**
 * evm_mine (anvil/hardhat): seals the block being built now, with everything sent before the
 * call. Answers "0x0" as anvil does.
 */
export function mine(backend: RpcBackend) {
  return defineMethod({
    params: [optional(parseIgnored)],
    handler: async () => {
      await transactionSink(backend).mine();
      return "0x0";
    },
  });
}
