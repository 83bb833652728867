import type { RpcBackend } from "../../services/backend.ts";
import { InvalidParamsError } from "../../services/errors.ts";
import { devControl, parseDevNumber } from "../dev/devControl.ts";
import { defineMethod, optional } from "../method.ts";

/** What anvil_reset / hardhat_reset ask for: a fork (of a URL, at a block), or none. */
export type ResetRequest = {
  readonly forking?: { readonly jsonRpcUrl?: string; readonly blockNumber?: bigint };
};

/** `{forking?: {jsonRpcUrl?, blockNumber?}}`, as anvil and Hardhat take it. */
export function parseResetRequest(raw: unknown): ResetRequest {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new InvalidParamsError("invalid reset options: want an object {forking?: {…}}");
  const forking = (raw as { forking?: unknown }).forking;
  if (forking === undefined || forking === null) return {};
  if (typeof forking !== "object" || Array.isArray(forking))
    throw new InvalidParamsError("invalid reset options: forking must be an object");
  const f = forking as { jsonRpcUrl?: unknown; blockNumber?: unknown };
  if (f.jsonRpcUrl !== undefined && f.jsonRpcUrl !== null && typeof f.jsonRpcUrl !== "string")
    throw new InvalidParamsError("invalid reset options: forking.jsonRpcUrl must be a string");
  if (typeof f.jsonRpcUrl === "string" && !/^https?:\/\//.test(f.jsonRpcUrl))
    throw new InvalidParamsError(
      `invalid reset options: forking.jsonRpcUrl must be http:// or https://, got ${JSON.stringify(f.jsonRpcUrl)}`,
    );
  return {
    forking: {
      ...(typeof f.jsonRpcUrl === "string" ? { jsonRpcUrl: f.jsonRpcUrl } : {}),
      ...(f.blockNumber === undefined || f.blockNumber === null
        ? {}
        : { blockNumber: parseDevNumber(f.blockNumber) }),
    },
  };
}

/**
 * anvil_reset(options?) → null (hardhat_reset → true): the chain is replaced, in one step, by a
 * fork of `forking.jsonRpcUrl` (the current upstream when absent) at `forking.blockNumber` (its
 * head, less a few blocks when remote, when absent), or, without `forking`, by a new dev chain.
 * Pool, snapshots and impersonations go with the old chain.
 */
export function reset(answer: null | true) {
  return (backend: RpcBackend) =>
    defineMethod({
      params: [optional(parseResetRequest)],
      handler: async ([request]) => {
        const forking = request?.forking;
        await devControl(backend, {
          op: "reset",
          ...(forking === undefined
            ? {}
            : {
                fork: {
                  ...(forking.jsonRpcUrl === undefined ? {} : { url: forking.jsonRpcUrl }),
                  ...(forking.blockNumber === undefined
                    ? {}
                    : { blockNumber: forking.blockNumber }),
                },
              }),
        });
        return answer;
      },
    });
}
