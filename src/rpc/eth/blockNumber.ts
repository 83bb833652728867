import type { RpcBackend } from "../../services/backend.ts";
import { ServerError } from "../../services/errors.ts";
import { quantity } from "../../util/hex.ts";
import { defineMethod } from "../method.ts";

/** eth_blockNumber → newest sealed block. */
export function blockNumber(backend: RpcBackend) {
  return defineMethod({
    params: [],
    handler: () => {
      const head = backend.chain.headNumber();
      if (head === undefined) throw new ServerError("archive is empty");
      return quantity(head);
    },
  });
}
