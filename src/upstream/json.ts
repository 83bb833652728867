// The upstream's JSON answers as flashnode keeps them: raw objects, untouched (OP-stack fields such
// as l1Fee, depositNonce, sourceHash, mint pass through), with the few fields flashnode reads
// parsed here, at the edge, into bigint and bytes.
import { bytesToHex, type Hex, unprefixedHexToBytes } from "../util/hex.ts";
import { UpstreamProtocolError } from "./errors.ts";

/** A JSON object as the upstream sent it. */
export type RpcObject = { readonly [field: string]: unknown };

/** A block as the upstream sent it (eth_getBlockBy*): transactions are hashes or objects. */
export type RpcBlock = RpcObject & {
  readonly number: Hex;
  readonly hash: Hex;
  readonly parentHash: Hex;
  readonly transactions: readonly (Hex | RpcObject)[];
};

/** A selector the upstream understands in place of a block number. */
export type BlockTag = "latest" | "earliest" | "safe" | "finalized" | "pending";

export function isObject(v: unknown): v is RpcObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function bad(host: string, what: string, value: unknown): UpstreamProtocolError {
  const shown = JSON.stringify(value) ?? String(value);
  return new UpstreamProtocolError(
    host,
    `the upstream at ${host} answered ${what} with ${shown.length > 120 ? `${shown.slice(0, 120)}…` : shown}`,
  );
}

/** A QUANTITY (`0x…`) as bigint. */
export function parseQuantity(host: string, what: string, v: unknown): bigint {
  if (typeof v !== "string" || !/^0x[0-9a-fA-F]{1,64}$/.test(v)) throw bad(host, what, v);
  return BigInt(v);
}

/** DATA (`0x…`, even length) as bytes, of `length` bytes when given. */
export function parseData(host: string, what: string, v: unknown, length?: number): Uint8Array {
  const bytes =
    typeof v === "string" && v.startsWith("0x") ? unprefixedHexToBytes(v, 2) : undefined;
  if (bytes === undefined || (length !== undefined && bytes.length !== length))
    throw bad(host, what, v);
  return bytes;
}

/** A block answer: null (no such block) or an object with number, hash, parentHash, txs. */
export function parseBlock(host: string, what: string, v: unknown): RpcBlock | null {
  if (v === null) return null;
  if (
    !isObject(v) ||
    typeof v.number !== "string" ||
    typeof v.hash !== "string" ||
    typeof v.parentHash !== "string" ||
    !Array.isArray(v.transactions)
  )
    throw bad(host, what, v);
  return v as RpcBlock;
}

/** The block's number and hash, parsed. */
export function blockId(host: string, block: RpcBlock): { number: bigint; hash: Uint8Array } {
  return {
    number: parseQuantity(host, "a block number", block.number),
    hash: parseData(host, "a block hash", block.hash, 32),
  };
}

/** The same block with transaction hashes in place of transaction objects (fullTx = false). */
export function withTxHashes(block: RpcBlock): RpcBlock {
  return {
    ...block,
    transactions: block.transactions.map((tx) => (typeof tx === "string" ? tx : (tx.hash as Hex))),
  };
}

export function hexQuantity(n: bigint): Hex {
  return `0x${n.toString(16)}`;
}

export function hex(bytes: Uint8Array): Hex {
  return bytesToHex(bytes);
}

/** EIP-1898: state pinned to a block by hash, which survives the upstream's reorgs. */
export function atBlockHash(hash: Uint8Array): { blockHash: Hex } {
  return { blockHash: bytesToHex(hash) };
}
