import type { RpcBackend } from "../backend.ts";
import { blockJson } from "../format/block.ts";
import { defineMethod, RawJson, required } from "../method.ts";
import { parseBlockNumberOnly, parseBool, parseHash32 } from "../params.ts";
import { type ResolvedBlock, resolveBlock } from "../resolveBlock.ts";

function renderBlock(
  backend: RpcBackend,
  block: ResolvedBlock | undefined,
  full: boolean,
): RawJson | null {
  if (block === undefined) return null;
  const headerRlp = backend.chain.headerRlp(block.number, block.hash);
  const bodyRlp = backend.chain.bodyRlp(block.number, block.hash);
  if (headerRlp === undefined || bodyRlp === undefined) return null;
  const view = backend.decoder.block(headerRlp, bodyRlp);
  const senders = full
    ? (backend.chain.receipts(block.number, block.hash)?.receipts.map((r) => r.from) ?? [])
    : [];
  return new RawJson(blockJson(view, full, senders));
}

/** eth_getBlockByNumber(number|tag, fullTransactions) → block or null. */
export function getBlockByNumber(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseBlockNumberOnly), required(parseBool)],
    handler: ([selector, full]) =>
      renderBlock(backend, resolveBlock(backend.chain, selector), full),
  });
}

/** eth_getBlockByHash(hash, fullTransactions) → block or null. */
export function getBlockByHash(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseHash32), required(parseBool)],
    handler: ([hash, full]) =>
      renderBlock(
        backend,
        resolveBlock(backend.chain, { kind: "hash", hash, requireCanonical: false }),
        full,
      ),
  });
}
