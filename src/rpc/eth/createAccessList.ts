import type { RpcBackend } from "../../services/backend.ts";
import type { BlockSelector } from "../../services/blockSelector.ts";
import { array, data, object, qty } from "../../util/json.ts";
import { parseCallArgs } from "../callArgs.ts";
import { withCallErrors } from "../callFailure.ts";
import { defineMethod, optional, RawJson, required } from "../method.ts";
import { parseBlockSelector } from "../params.ts";
import { callService, callTarget } from "./callTarget.ts";

/** geth's default block for eth_createAccessList: the pending block. */
const ACCESS_LIST_DEFAULT: BlockSelector = { kind: "tag", tag: "pending" };

/**
 * eth_createAccessList(args, block = pending) → {accessList, error?, gasUsed}: the addresses and
 * slots the call touches (geth's fixed point), the gas it uses with them, and its failure if it
 * fails (a revert is reported here, not thrown).
 */
export function createAccessList(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseCallArgs), optional(parseBlockSelector)],
    reads: "state",
    handler: async ([args, selector]) => {
      const target = callTarget(backend, selector ?? ACCESS_LIST_DEFAULT);
      const r = await withCallErrors(() => callService(backend).createAccessList(args, target));
      return new RawJson(
        object([
          [
            "accessList",
            array(r.accessList, (e) =>
              object([
                ["address", data(e.address)],
                ["storageKeys", array(e.storageKeys, (k) => data(k))],
              ]),
            ),
          ],
          ["error", r.error === undefined ? undefined : JSON.stringify(r.error)],
          ["gasUsed", qty(r.gasUsed)],
        ]),
      );
    },
  });
}
