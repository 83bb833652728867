// The pre-confirmed block rendered as the stored blocks are: its header (zero state root) and a
// block view, for the RPC layer's pending answers.
import { type BlockHeader, createBlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { KECCAK256_RLP } from "@ethereumjs/util";
import {
  type BlockView,
  decodeTransaction,
  headerView,
  listPrefixLength,
  stringPrefixLength,
} from "../chain/blockView.ts";
import type { PendingBlock } from "./pendingBlock.ts";

const ZERO32 = new Uint8Array(32);

/** The pre-confirmed block's header: its environment, roots so far and a zero state root. */
function pendingHeader(common: Common, p: PendingBlock): BlockHeader {
  const b = p.base;
  return createBlockHeader(
    {
      parentHash: b.parentHash,
      coinbase: b.coinbase,
      stateRoot: ZERO32,
      transactionsTrie: p.transactionsRoot,
      receiptTrie: p.receiptsRoot,
      logsBloom: p.logsBloom,
      number: BigInt(b.number),
      gasLimit: b.gasLimit,
      gasUsed: p.gasUsed,
      timestamp: b.timestamp,
      extraData: b.extraData,
      mixHash: b.prevRandao,
      baseFeePerGas: b.baseFeePerGas,
      withdrawalsRoot: KECCAK256_RLP,
      blobGasUsed: p.blobGasUsed,
      excessBlobGas: b.excessBlobGas,
      parentBeaconBlockRoot: b.parentBeaconBlockRoot,
    },
    { common, setHardfork: true },
  );
}

/** The pre-confirmed block's header RLP, as its view renders it (zero state root). */
export function pendingHeaderRlp(common: Common, p: PendingBlock): Uint8Array {
  return pendingHeader(common, p).serialize();
}

/**
 * The pre-confirmed block as a block view. Like Base, its hash is 32 zero bytes, and so is its
 * state root: both exist only once the block is sealed.
 */
export function pendingBlockView(common: Common, p: PendingBlock): BlockView {
  const header = pendingHeader(common, p);
  const headerRlp = header.serialize();
  let txBytes = 0;
  for (const t of p.transactions) {
    // Legacy transactions are RLP lists in the body; typed ones are byte strings around the envelope.
    const isList = t.raw[0]! >= 0xc0;
    txBytes += isList ? t.raw.length : stringPrefixLength(t.raw.length) + t.raw.length;
  }
  // header ‖ [txs] ‖ [] uncles ‖ [] withdrawals
  const payload = headerRlp.length + listPrefixLength(txBytes) + txBytes + 1 + 1;
  return {
    header: { ...headerView(header), hash: ZERO32 },
    size: listPrefixLength(payload) + payload,
    transactions: p.transactions.map((t) => decodeTransaction(common, t.raw)),
    uncleHashes: [],
    withdrawals: [],
  };
}
