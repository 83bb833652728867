// Which block a debug_trace* method traces, with geth's not-found texts (eth/tracers/api.go).
import type { RpcBackend } from "../../services/backend.ts";
import type { BlockNumberSelector } from "../../services/blockSelector.ts";
import type { TraceOptions, TraceRequest } from "../../services/calls.ts";
import { ServerError } from "../../services/errors.ts";
import { bytesToHex, equalBytes } from "../../util/hex.ts";
import { withCallErrors } from "../callFailure.ts";
import { callService } from "../eth/callTarget.ts";
import { RawJson } from "../method.ts";
import { type BlockTarget, resolveBlockTarget } from "../resolveBlock.ts";

/** A canonical block by hash (geth's blockByHash: `block 0x… not found`). */
export function blockNumberByHash(backend: RpcBackend, hash: Uint8Array): number {
  const n = backend.chain.blockNumber(hash);
  const canonical = n === undefined ? undefined : backend.chain.canonicalHash(n);
  if (n === undefined || canonical === undefined || !equalBytes(canonical, hash))
    throw new ServerError(`block ${bytesToHex(hash)} not found`);
  return n;
}

/**
 * A block by number or tag (geth's blockByNumber: `block #N not found`); `pending` is the
 * pre-confirmed block when there is one, else the newest sealed block.
 */
export function blockByNumber(backend: RpcBackend, selector: BlockNumberSelector): BlockTarget {
  const target = resolveBlockTarget(backend, selector);
  if (target === undefined) {
    throw new ServerError(
      `block #${selector.kind === "number" ? selector.number : selector.tag} not found`,
    );
  }
  return target;
}

/** Runs a trace in the call worker; its JSON text goes out as is. */
export async function runTrace(
  backend: RpcBackend,
  request: TraceRequest,
  options: TraceOptions,
): Promise<RawJson> {
  const json = await withCallErrors(() => callService(backend).trace(request, options));
  return new RawJson(json);
}
