import type { RpcBackend } from "../../services/backend.ts";
import { defineMethod, required } from "../method.ts";
import { parseBlockNumberOnly, parseBool } from "../params.ts";
import { resolveBlockTarget } from "../resolveBlock.ts";
import { blockResult } from "./blockResult.ts";

/** eth_getBlockByNumber(number|tag, fullTransactions) → block or null; pending → the pre-confirmed block. */
export function getBlockByNumber(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseBlockNumberOnly), required(parseBool)],
    reads: "block",
    handler: ([selector, full]) =>
      blockResult(backend, resolveBlockTarget(backend, selector), full),
  });
}
