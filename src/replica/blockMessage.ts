// A sealed block read back from the archive as the block stream's message, and a message turned
// into the archive's one write. The publisher reads blocks from its own archive (the LMDB commit
// is the source of truth), so a block left unpublished by a crash is published from the same
// bytes at the next start.
import type { BlockWrite } from "../chain/types.ts";
import type { ChainStore } from "../store/archive.ts";
import { bytesToUnprefixedHex, equalBytes } from "../util/hex.ts";
import type { BlockMessage } from "./codec.ts";

/** The block stream's message for canonical block `number`, or undefined if not stored. */
export function blockMessageFromStore(store: ChainStore, number: number): BlockMessage | undefined {
  const hash = store.canonicalHash(number);
  if (hash === undefined) return undefined;
  const headerRlp = store.headerRlp(number, hash);
  const bodyRlp = store.bodyRlp(number, hash);
  const receipts = store.receipts(number, hash);
  if (headerRlp === undefined || bodyRlp === undefined || receipts === undefined)
    throw new Error(`block ${number} is canonical but not whole in the archive`);
  const { accounts, storage } = store.blockChanges(number);
  const code: Array<readonly [string, Uint8Array]> = [];
  for (const c of accounts) {
    const codeHash = c.after?.codeHash;
    if (codeHash === undefined) continue;
    const was = c.before?.codeHash;
    if (was !== undefined && equalBytes(was, codeHash)) continue;
    const bytecode = store.code(codeHash);
    if (bytecode !== undefined) code.push([bytesToUnprefixedHex(codeHash), bytecode]);
  }
  // The chain's first block (0, or a fork's F) carries what a new archive starts with.
  const base = store.forkBase();
  const first = number === (base?.number ?? 0);
  const config = first ? store.chainConfig() : undefined;
  const devWrites = store.devWrites(number);
  return {
    number,
    hash,
    headerRlp,
    bodyRlp,
    timestamp: receipts.blockTimestamp,
    transactionHashes: receipts.receipts.map((r) => r.transactionHash),
    receipts: receipts.receipts,
    accountChanges: accounts,
    storageChanges: storage,
    code,
    ...(config === undefined ? {} : { chainConfig: config }),
    ...(first && base !== undefined ? { forkBase: base } : {}),
    ...(devWrites.length === 0 ? {} : { devWrites }),
  };
}

/** The archive write of a received block (no trie nodes: see codec.ts). */
export function blockWriteOf(m: BlockMessage): BlockWrite {
  const { chainConfig: _, forkBase: __, code, ...block } = m;
  return { ...block, code: new Map(code), trieNodes: new Map() };
}

/** What names the chain an archive holds: its block 0's hash, or a fork's F's. */
export function chainOrigin(store: ChainStore): Uint8Array | undefined {
  return store.forkBase()?.hash ?? store.canonicalHash(0);
}
