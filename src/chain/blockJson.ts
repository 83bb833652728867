// A block as JSON-RPC shows it with full transactions (eth_getBlockByNumber(n, true)), back to its
// consensus RLP [header, transactions, uncles, withdrawals?], as debug_getRawBlock answers and
// blockFromRlp (op/blockTx.ts) decodes. The header is checked against the block's hash and each
// transaction against its own; the pieces are encoded once and joined, never re-decoded.
import { RLP } from "@ethereumjs/rlp";
import { keccak256 } from "../util/crypto.ts";
import { FlashnodeError } from "../util/errors.ts";
import { bigIntToBytes, bytesToHex } from "../util/hex.ts";
import { headerRlpFromJson } from "./headerJson.ts";
import { jsonHex, rawTransactionFromJson } from "./txJson.ts";

export class BlockJsonError extends FlashnodeError {
  readonly code = "BLOCK_JSON";
}

type Json = Readonly<Record<string, unknown>>;

const EMPTY_LIST = Uint8Array.of(0xc0);
/** sha3Uncles of a block without uncles: keccak256 of the empty list. */
const NO_UNCLES = bytesToHex(keccak256(EMPTY_LIST));

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** An RLP list of items already encoded. */
function rlpList(items: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const item of items) length += item.length;
  const long = length >= 56 ? bigIntToBytes(BigInt(length)) : new Uint8Array(0);
  const out = new Uint8Array(1 + long.length + length);
  out[0] = length < 56 ? 0xc0 + length : 0xf7 + long.length;
  out.set(long, 1);
  let at = 1 + long.length;
  for (const item of items) {
    out.set(item, at);
    at += item.length;
  }
  return out;
}

/** A body's transaction: a legacy one is its RLP list, a typed one its envelope as a string. */
function bodyTransaction(tx: unknown, i: number, label: string): Uint8Array {
  if (!isObject(tx))
    throw new BlockJsonError(
      `${label}: transaction ${i} is ${JSON.stringify(tx)}, not an object: fetch the block with full transactions (eth_getBlockByNumber(n, true))`,
    );
  const raw = rawTransactionFromJson(tx);
  return raw[0]! >= 0xc0 ? raw : RLP.encode(raw);
}

function withdrawalsRlp(block: Json, label: string): Uint8Array {
  const list = block.withdrawals;
  if (!Array.isArray(list))
    throw new BlockJsonError(`${label}: the header has a withdrawals root but no withdrawals list`);
  const field = (w: Json, i: number, key: string, length?: number): Uint8Array => {
    const bytes = jsonHex(w[key], length === undefined);
    if (bytes === undefined || (length !== undefined && bytes.length !== length))
      throw new BlockJsonError(`${label}: withdrawal ${i}'s ${key} is ${JSON.stringify(w[key])}`);
    return bytes;
  };
  return RLP.encode(
    list.map((w: unknown, i) => {
      if (!isObject(w)) throw new BlockJsonError(`${label}: withdrawal ${i} is not an object`);
      return [
        field(w, i, "index"),
        field(w, i, "validatorIndex"),
        field(w, i, "address", 20),
        field(w, i, "amount"),
      ];
    }),
  );
}

/**
 * The RLP of a block from its JSON with full transaction objects. Throws HeaderJsonError when
 * the header does not hash to `hash`, TransactionJsonError when a transaction does not hash to
 * its own, and BlockJsonError when the body cannot be rebuilt (transaction hashes only, uncles,
 * a missing withdrawals list). That the body is the whole body (its transactions root) is not
 * checked here, as it needs a trie: the caller's, e.g. Block.transactionsTrieIsValid().
 */
export function blockRlpFromJson(block: Json): Uint8Array {
  const header = headerRlpFromJson(block);
  const label = `block ${String(block.number)} (${String(block.hash)})`;
  const txs = block.transactions;
  if (!Array.isArray(txs)) throw new BlockJsonError(`${label}: no transactions list`);
  // The JSON names uncles by hash only (their headers take an eth_getUncleByBlock* call each),
  // so only a block without any is rebuilt; the header's sha3Uncles says so whatever the list.
  const uncles = block.uncles;
  const sha3Uncles = String(block.sha3Uncles).toLowerCase();
  if ((Array.isArray(uncles) && uncles.length > 0) || sha3Uncles !== NO_UNCLES)
    throw new BlockJsonError(
      `${label} has uncles (sha3Uncles ${sha3Uncles}): their headers are not part of the block's JSON, so its RLP cannot be rebuilt from it`,
    );
  const parts = [
    header,
    rlpList(txs.map((tx: unknown, i) => bodyTransaction(tx, i, label))),
    EMPTY_LIST,
  ];
  const root = block.withdrawalsRoot;
  if (root !== undefined && root !== null) parts.push(withdrawalsRlp(block, label));
  return rlpList(parts);
}
