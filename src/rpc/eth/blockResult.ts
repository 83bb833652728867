import type { BlockReceipts } from "../../chain/types.ts";
import type { RpcBackend } from "../../services/backend.ts";
import { blockJson } from "../format/block.ts";
import { RawJson } from "../method.ts";
import type { BlockTarget } from "../resolveBlock.ts";

const ZERO32 = new Uint8Array(32);

/** A block rendered as geth's block object, or null when it is not stored. */
export function blockResult(
  backend: RpcBackend,
  target: BlockTarget | undefined,
  full: boolean,
): RawJson | null {
  if (target === undefined) return null;
  if (target.kind === "pending") {
    const view = backend.decoder.pendingBlock(target.block);
    return new RawJson(
      blockJson(
        view,
        full,
        target.block.receipts.map((r) => r.from),
        [],
        target.block.receipts.map((r) => r.op),
      ),
    );
  }
  const headerRlp = backend.chain.headerRlp(target.number, target.hash);
  const bodyRlp = backend.chain.bodyRlp(target.number, target.hash);
  if (headerRlp === undefined || bodyRlp === undefined) return null;
  const view = backend.decoder.block(headerRlp, bodyRlp);
  // Senders come from the stored receipts: recovering them from signatures would dominate.
  const receipts = full ? backend.chain.receipts(target.number, target.hash)?.receipts : undefined;
  const senders = receipts?.map((r) => r.from) ?? [];
  return new RawJson(
    blockJson(
      view,
      full,
      senders,
      [],
      receipts?.map((r) => r.op),
    ),
  );
}

/** A block's receipts with the fields every receipt carries; pending ones have a zero hash (as Base). */
export function blockReceipts(
  backend: RpcBackend,
  target: BlockTarget | undefined,
): BlockReceipts | undefined {
  if (target === undefined) return undefined;
  if (target.kind === "pending") {
    const b = target.block;
    return {
      blockNumber: b.base.number,
      blockHash: ZERO32,
      blockTimestamp: b.base.timestamp,
      receipts: b.receipts,
    };
  }
  return backend.chain.receipts(target.number, target.hash);
}
