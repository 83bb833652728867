// Consensus encodings read straight from stored bytes, as geth's debug_getRaw* and its
// transaction/uncle lookups produce them: a block's RLP, its transactions' binary (EIP-2718)
// encodings, its uncle headers and its receipts. Bodies are walked, never fully decoded.
import { RLP } from "@ethereumjs/rlp";
import { FlashnodeError } from "../util/errors.ts";
import { bigIntToBytes } from "../util/hex.ts";
import type { ReceiptRecord } from "./types.ts";

const EMPTY = new Uint8Array(0);
const STATUS_SUCCESS = Uint8Array.of(1);

export class MalformedRlpError extends FlashnodeError {
  readonly code = "MALFORMED_RLP";
}

/** One RLP item: where it starts, where its payload lies, whether it is a list. */
type Item = {
  readonly offset: number;
  readonly start: number;
  readonly end: number;
  readonly list: boolean;
};

function bigEndian(b: Uint8Array, start: number, length: number): number {
  if (start + length > b.length || length > 6)
    throw new MalformedRlpError("RLP length out of range");
  let n = 0;
  for (let i = 0; i < length; i++) n = n * 256 + b[start + i]!;
  return n;
}

function itemAt(b: Uint8Array, offset: number, limit: number): Item {
  if (offset >= limit) throw new MalformedRlpError("RLP item past its end");
  const p = b[offset]!;
  let start: number;
  let length: number;
  let list = false;
  if (p < 0x80) {
    start = offset;
    length = 1;
  } else if (p <= 0xb7) {
    start = offset + 1;
    length = p - 0x80;
  } else if (p <= 0xbf) {
    start = offset + 1 + (p - 0xb7);
    length = bigEndian(b, offset + 1, p - 0xb7);
  } else if (p <= 0xf7) {
    list = true;
    start = offset + 1;
    length = p - 0xc0;
  } else {
    list = true;
    start = offset + 1 + (p - 0xf7);
    length = bigEndian(b, offset + 1, p - 0xf7);
  }
  const end = start + length;
  if (end > limit) throw new MalformedRlpError("RLP item longer than its input");
  return { offset, start, end, list };
}

function children(b: Uint8Array, parent: Item): Item[] {
  if (!parent.list) throw new MalformedRlpError("expected an RLP list");
  const out: Item[] = [];
  for (let pos = parent.start; pos < parent.end; ) {
    const item = itemAt(b, pos, parent.end);
    out.push(item);
    pos = item.end;
  }
  return out;
}

/** The top-level list of a body (`[txs, uncles, withdrawals?]`) and its first two entries. */
function bodyLists(bodyRlp: Uint8Array): { body: Item; txs: Item; uncles: Item } {
  const body = itemAt(bodyRlp, 0, bodyRlp.length);
  const [txs, uncles] = children(bodyRlp, body);
  if (txs === undefined || uncles === undefined || !txs.list || !uncles.list)
    throw new MalformedRlpError("block body lacks its transaction and uncle lists");
  return { body, txs, uncles };
}

function countItems(b: Uint8Array, list: Item): number {
  let n = 0;
  for (let pos = list.start; pos < list.end; n++) pos = itemAt(b, pos, list.end).end;
  return n;
}

/** How many transactions and uncles a stored body holds. */
export function bodyCounts(bodyRlp: Uint8Array): { transactions: number; uncles: number } {
  const { txs, uncles } = bodyLists(bodyRlp);
  return { transactions: countItems(bodyRlp, txs), uncles: countItems(bodyRlp, uncles) };
}

/**
 * The body's transactions in their binary encoding (what eth_sendRawTransaction takes): a legacy
 * transaction is its RLP list, a typed one the envelope the body holds as a byte string.
 */
export function bodyTransactions(bodyRlp: Uint8Array): Uint8Array[] {
  const { txs } = bodyLists(bodyRlp);
  return children(bodyRlp, txs).map((t) =>
    t.list ? bodyRlp.subarray(t.offset, t.end) : bodyRlp.subarray(t.start, t.end),
  );
}

/** The body's uncle headers, each as its header RLP. */
export function bodyUncles(bodyRlp: Uint8Array): Uint8Array[] {
  const { uncles } = bodyLists(bodyRlp);
  return children(bodyRlp, uncles).map((u) => bodyRlp.subarray(u.offset, u.end));
}

/** The RLP list header for a payload of `length` bytes. */
function listPrefix(length: number): Uint8Array {
  if (length < 56) return Uint8Array.of(0xc0 + length);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Uint8Array.from([0xf7 + bytes.length, ...bytes]);
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

/** A block's RLP (`[header, txs, uncles, withdrawals?]`) from its stored header and body. */
export function blockRlp(headerRlp: Uint8Array, bodyRlp: Uint8Array): Uint8Array {
  const { body } = bodyLists(bodyRlp);
  const bodyPayload = bodyRlp.subarray(body.start, body.end);
  return concat([listPrefix(headerRlp.length + bodyPayload.length), headerRlp, bodyPayload]);
}

/** blockRlp's inverse: a block's RLP as its header's RLP and its body as stored. */
export function splitBlockRlp(block: Uint8Array): { headerRlp: Uint8Array; bodyRlp: Uint8Array } {
  const outer = itemAt(block, 0, block.length);
  if (outer.end !== block.length) throw new MalformedRlpError("bytes after the block's RLP");
  const [header] = children(block, outer);
  if (header === undefined || !header.list) throw new MalformedRlpError("block lacks its header");
  const rest = block.subarray(header.end, outer.end);
  return {
    headerRlp: block.subarray(header.offset, header.end),
    bodyRlp: concat([listPrefix(rest.length), rest]),
  };
}

/**
 * A body of binary-encoded transactions, no uncles and no withdrawals (the pre-confirmed block's,
 * post-Shanghai): legacy transactions go in as lists, typed ones as byte strings.
 */
export function bodyRlpOf(transactions: readonly Uint8Array[]): Uint8Array {
  const items = transactions.map((raw) =>
    raw.length > 0 && raw[0]! >= 0xc0 ? raw : RLP.encode(raw),
  );
  const txs = concat(items);
  const txList = concat([listPrefix(txs.length), txs]);
  return concat([listPrefix(txList.length + 2), txList, Uint8Array.of(0xc0, 0xc0)]);
}

/**
 * A receipt's consensus encoding, the leaf of the receipts trie: `rlp([status | root,
 * cumulativeGasUsed, logsBloom, logs])`, preceded by the type byte for typed transactions.
 */
export function receiptRlp(r: ReceiptRecord): Uint8Array {
  const outcome = r.root ?? (r.status === 1 ? STATUS_SUCCESS : EMPTY);
  const fields = [
    outcome,
    bigIntToBytes(r.cumulativeGasUsed),
    r.logsBloom,
    r.logs.map((l) => [l.address, [...l.topics], l.data]),
  ];
  // An OP deposit's receipt since Canyon also commits to its nonce and receipt version.
  const op = r.op;
  if (op?.depositReceiptVersion !== undefined && op.depositNonce !== undefined)
    fields.push(bigIntToBytes(op.depositNonce), bigIntToBytes(op.depositReceiptVersion));
  const payload = RLP.encode(fields);
  return r.type === 0 ? payload : concat([Uint8Array.of(r.type), payload]);
}
