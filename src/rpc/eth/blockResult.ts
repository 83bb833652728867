import type { RpcBackend } from "../backend.ts";
import { blockJson } from "../format/block.ts";
import { RawJson } from "../method.ts";
import type { ResolvedBlock } from "../resolveBlock.ts";

/** A resolved block rendered as geth's block object, or null when it is not stored. */
export function blockResult(
  backend: RpcBackend,
  block: ResolvedBlock | undefined,
  full: boolean,
): RawJson | null {
  if (block === undefined) return null;
  const headerRlp = backend.chain.headerRlp(block.number, block.hash);
  const bodyRlp = backend.chain.bodyRlp(block.number, block.hash);
  if (headerRlp === undefined || bodyRlp === undefined) return null;
  const view = backend.decoder.block(headerRlp, bodyRlp);
  // Senders come from the stored receipts: recovering them from signatures would dominate.
  const senders = full
    ? (backend.chain.receipts(block.number, block.hash)?.receipts.map((r) => r.from) ?? [])
    : [];
  return new RawJson(blockJson(view, full, senders));
}
