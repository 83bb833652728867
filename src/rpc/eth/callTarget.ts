import type { RpcBackend } from "../../services/backend.ts";
import type { BlockSelector } from "../../services/blockSelector.ts";
import type { CallTarget } from "../../services/callRequest.ts";
import { ServerError } from "../../services/errors.ts";
import { resolveBlockTarget } from "../resolveBlock.ts";

/** The block a call runs in: like a state read, an unknown block is an error. */
export function callTarget(backend: RpcBackend, selector: BlockSelector | undefined): CallTarget {
  const sel: BlockSelector = selector ?? { kind: "tag", tag: "latest" };
  const target = resolveBlockTarget(backend, sel);
  if (target === undefined) {
    throw new ServerError(sel.kind === "hash" ? "header for hash not found" : "header not found");
  }
  return target.kind === "pending"
    ? { number: target.block.base.number, pending: true }
    : { number: target.number, pending: false };
}

export function callService(backend: RpcBackend) {
  if (backend.calls === undefined)
    throw new ServerError("calls are not served by this node (read-only archive)");
  return backend.calls;
}
