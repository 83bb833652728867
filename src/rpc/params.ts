// Parameter parsers with geth's exact error texts (common/hexutil, common.Address/Hash,
// rpc.BlockNumber(OrHash), encoding/json). Messages omit the "invalid argument N: " prefix,
// which the dispatcher adds. Known gap: geth's hexutil reads the raw JSON text between the
// quotes, so a string written with JSON escapes (`"0x\u0031"`) fails in geth but parses here.

import type { BlockNumberSelector, BlockSelector, BlockTag } from "../services/blockSelector.ts";
import { InvalidParamsError } from "../services/errors.ts";
import { nibble, unprefixedHexToBytes } from "../util/hex.ts";
import { goFold, goQuote, utf8Length } from "./wire.ts";

/** What a block parameter left out means, unless its method says otherwise (resolveBlock.ts). */
export const LATEST: BlockNumberSelector = { kind: "tag", tag: "latest" };
export const PENDING: BlockNumberSelector = { kind: "tag", tag: "pending" };

/**
 * A parser whose values name blocks, and `blocks`, which lists the blocks a parsed value names.
 * A method parameter built on one (method.ts `required`, `optional`) carries it, so the method
 * registry itself says where each method takes its blocks: the edge's policy reads a call's
 * blocks through the same parser the handler's argument comes from, and no method is forgotten.
 */
export type BlockParser<T> = ((raw: unknown) => T) & {
  readonly blocks: (value: T) => readonly BlockSelector[];
};

/** Makes `parse` (a function made for it: it is given the property) a BlockParser. */
export function namesBlocks<T>(
  parse: (raw: unknown) => T,
  blocks: (value: T) => readonly BlockSelector[],
): BlockParser<T> {
  return Object.assign(parse, { blocks });
}

function itself(selector: BlockSelector): readonly BlockSelector[] {
  return [selector];
}

// hexutil decError texts.
const ERR_EMPTY = "empty hex string";
const ERR_SYNTAX = "invalid hex string";
const ERR_PREFIX = "hex string without 0x prefix";
const ERR_ODD = "hex string of odd length";
const ERR_EMPTY_NUMBER = 'hex string "0x"';
const ERR_LEADING_ZERO = "hex number with leading zero digits";
const ERR_UINT64_RANGE = "hex number > 64 bits";
const ERR_BIG256_RANGE = "hex number > 256 bits";

const MAX_INT64 = 0x7fffffffffffffffn;

function invalid(message: string): InvalidParamsError {
  return new InvalidParamsError(message);
}

/** encoding/json's UnmarshalTypeError text. */
function typeError(value: string, goType: string): InvalidParamsError {
  return invalid(`json: cannot unmarshal ${value} into Go value of type ${goType}`);
}

/** The JSON kind word encoding/json uses in UnmarshalTypeError. */
function jsonKind(raw: unknown): string {
  if (typeof raw === "string") return "string";
  if (typeof raw === "number") return "number";
  if (typeof raw === "boolean") return "bool";
  if (Array.isArray(raw)) return "array";
  return "object";
}

function has0x(s: string): boolean {
  return s.length >= 2 && s.charCodeAt(0) === 0x30 && (s[1] === "x" || s[1] === "X");
}

function isHexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** hexutil.UnmarshalFixedJSON: a fixed-size DATA value (common.Address, common.Hash). */
function parseFixed(raw: unknown, size: number, goType: string): Uint8Array {
  if (typeof raw !== "string") throw typeError("non-string", goType);
  if (raw.length === 2 + size * 2 && has0x(raw)) {
    const bytes = unprefixedHexToBytes(raw, 2);
    if (bytes !== undefined) return bytes;
  }
  // Slow path: reproduce Go's check order on byte lengths.
  if (raw.length === 0) throw invalid(`hex string has length 0, want ${size * 2} for ${goType}`);
  if (!has0x(raw)) throw typeError(ERR_PREFIX, goType);
  const n = utf8Length(raw) - 2;
  if (n % 2 !== 0) throw typeError(ERR_ODD, goType);
  if (n !== size * 2) throw invalid(`hex string has length ${n}, want ${size * 2} for ${goType}`);
  throw typeError(ERR_SYNTAX, goType);
}

// The last address parsed: a batch names the same contract in call after call.
let lastAddressText = "";
let lastAddress: Uint8Array = new Uint8Array(20);

/**
 * common.Address (any letter case; the checksum is not validated, as in geth). The result may be
 * shared with other calls: callers must not modify it.
 */
export function parseAddress(raw: unknown): Uint8Array {
  if (raw === lastAddressText) return lastAddress;
  const address = parseFixed(raw, 20, "common.Address");
  lastAddressText = raw as string;
  lastAddress = address;
  return address;
}

/** common.Hash: transaction and block hashes. */
export function parseHash32(raw: unknown): Uint8Array {
  return parseFixed(raw, 32, "common.Hash");
}

/** hexutil.Bytes: `0x`-prefixed even-length DATA; "" is empty bytes. */
export function parseHexBytes(raw: unknown): Uint8Array {
  const goType = "hexutil.Bytes";
  if (typeof raw !== "string") throw typeError("non-string", goType);
  if (raw.length === 0) return new Uint8Array(0);
  if (!has0x(raw)) throw typeError(ERR_PREFIX, goType);
  const bytes = unprefixedHexToBytes(raw, 2);
  if (bytes !== undefined) return bytes;
  throw typeError((utf8Length(raw) - 2) % 2 !== 0 ? ERR_ODD : ERR_SYNTAX, goType);
}

/** hexutil Big/Uint64/Uint UnmarshalJSON: "" is zero; length is checked before digits. */
function parseQuantityJson(raw: unknown, maxDigits: number, rangeErr: string, goType: string) {
  if (typeof raw !== "string") throw typeError("non-string", goType);
  if (raw.length === 0) return 0n;
  if (!has0x(raw)) throw typeError(ERR_PREFIX, goType);
  if (raw.length === 2) throw typeError(ERR_EMPTY_NUMBER, goType);
  if (raw.length > 3 && raw.charCodeAt(2) === 0x30) throw typeError(ERR_LEADING_ZERO, goType);
  let ok = true;
  for (let i = 2; i < raw.length && ok; i++) ok = isHexDigit(raw.charCodeAt(i));
  const digits = ok ? raw.length - 2 : utf8Length(raw) - 2;
  if (digits > maxDigits) throw typeError(rangeErr, goType);
  if (!ok) throw typeError(ERR_SYNTAX, goType);
  return BigInt(`0x${raw.slice(2)}`);
}

/** hexutil.Big QUANTITY (at most 256 bits). */
export function parseQuantity(raw: unknown): bigint {
  return parseQuantityJson(raw, 64, ERR_BIG256_RANGE, "*hexutil.Big");
}

/** hexutil.Uint64 QUANTITY. */
export function parseUint64(raw: unknown): bigint {
  return parseQuantityJson(raw, 16, ERR_UINT64_RANGE, "hexutil.Uint64");
}

/** hexutil.Uint QUANTITY (geth on 64-bit: same limit and text as Uint64). */
export function parseUint(raw: unknown): bigint {
  return parseQuantityJson(raw, 16, ERR_UINT64_RANGE, "hexutil.Uint");
}

/** Go bool: JSON null leaves it false. */
export function parseBool(raw: unknown): boolean {
  if (typeof raw === "boolean") return raw;
  if (raw === null) return false;
  throw typeError(jsonKind(raw), "bool");
}

/** Go string: JSON null leaves it "". */
export function parseString(raw: unknown): string {
  if (typeof raw === "string") return raw;
  if (raw === null) return "";
  throw typeError(jsonKind(raw), "string");
}

/** rpc.ID (a Go string type): the argument of `*_unsubscribe`. */
export function parseSubscriptionId(raw: unknown): string {
  if (typeof raw === "string") return raw;
  if (raw === null) return "";
  throw typeError(jsonKind(raw), "rpc.ID");
}

/** eth_getStorageAt's key argument is a Go string; decode it with decodeStorageKey later. */
export const parseStorageKeyString: (raw: unknown) => string = parseString;

/**
 * geth's lenient decodeStorageKey (internal/ethapi/api.go). geth decodes the key only after
 * resolving the block, so handlers call this themselves; the error is reported as is (code
 * -32602, no "invalid argument" prefix).
 */
export function decodeStorageKey(key: string): Uint8Array {
  const hex = has0x(key) ? key.slice(2) : key;
  // Byte length as Go sees it; anything over 64 characters is too long either way.
  let n = hex.length > 64 ? hex.length : utf8Length(hex);
  if (n % 2 !== 0) n++;
  if (n > 64) throw storageKeyError("storage key too long (want at most 32 bytes)", key);
  const bytes = hexToWord(hex);
  if (bytes === undefined) throw storageKeyError("invalid hex in storage key", key);
  return bytes;
}

/** Up to 64 hex digits (odd lengths take a leading zero) right-aligned in 32 bytes. */
function hexToWord(hex: string): Uint8Array | undefined {
  const out = new Uint8Array(32);
  let byte = 31;
  let i = hex.length - 1;
  for (; i > 0; i -= 2, byte--) {
    const hi = nibble(hex.charCodeAt(i - 1));
    const lo = nibble(hex.charCodeAt(i));
    if (hi < 0 || lo < 0) return undefined;
    out[byte] = (hi << 4) | lo;
  }
  if (i === 0) {
    const lo = nibble(hex.charCodeAt(0));
    if (lo < 0) return undefined;
    out[byte] = lo;
  }
  return out;
}

function storageKeyError(reason: string, key: string): InvalidParamsError {
  return invalid(`${reason}: ${goQuote(key)}`);
}

/** hexutil.DecodeUint64 (strconv.ParseUint order: a bad digit before the 17th wins). */
function decodeUint64(s: string): bigint {
  if (s.length === 0) throw invalid(ERR_EMPTY);
  if (!has0x(s)) throw invalid(ERR_PREFIX);
  if (s.length === 2) throw invalid(ERR_EMPTY_NUMBER);
  if (s.length > 3 && s.charCodeAt(2) === 0x30) throw invalid(ERR_LEADING_ZERO);
  for (let i = 2; i < s.length; i++) {
    if (!isHexDigit(s.charCodeAt(i))) throw invalid(ERR_SYNTAX);
    if (i - 2 >= 16) throw invalid(ERR_UINT64_RANGE);
  }
  return BigInt(s);
}

function blockTag(s: string): BlockTag | undefined {
  switch (s) {
    case "latest":
    case "earliest":
    case "pending":
    case "safe":
    case "finalized":
      return s;
  }
  return undefined;
}

/** rpc.BlockNumber.UnmarshalJSON on the decoded string; non-strings fail on the prefix. */
function blockNumberFromJson(raw: unknown, tooHigh: string): BlockNumberSelector {
  if (typeof raw !== "string") throw invalid(ERR_PREFIX);
  const tag = blockTag(raw);
  if (tag !== undefined) return { kind: "tag", tag };
  const number = decodeUint64(raw);
  if (number > MAX_INT64) throw invalid(tooHigh);
  return { kind: "number", number };
}

/** geth's bare rpc.BlockNumber (eth_getBlockByNumber & co.): tags or a number, no hashes. */
export const parseBlockNumberOnly: BlockParser<BlockNumberSelector> = namesBlocks(
  (raw: unknown): BlockNumberSelector => blockNumberFromJson(raw, "block number larger than int64"),
  itself,
);

/** A block's hash (eth_getBlockByHash & co.): common.Hash, naming that block. */
export const parseBlockHash: BlockParser<Uint8Array> = namesBlocks(
  (raw: unknown) => parseHash32(raw),
  (hash) => [{ kind: "hash", hash, requireCanonical: false }],
);

/** The EIP-1898 object; undefined when Go's struct decoding fails (→ string fallback). */
function blockSelectorFromObject(obj: Record<string, unknown>): BlockSelector | undefined {
  let number: BlockNumberSelector | undefined;
  let hash: Uint8Array | undefined;
  let requireCanonical = false;
  try {
    for (const key of Object.keys(obj)) {
      const value = obj[key];
      switch (goFold(key)) {
        case "blocknumber":
          number = value === null ? undefined : blockNumberFromJson(value, "");
          break;
        case "blockhash":
          hash = value === null ? undefined : parseHash32(value);
          break;
        case "requirecanonical":
          if (typeof value === "boolean") requireCanonical = value;
          else if (value !== null) return undefined;
          break;
      }
    }
  } catch {
    return undefined;
  }
  if (number !== undefined && hash !== undefined) {
    throw invalid("cannot specify both BlockHash and BlockNumber, choose one or the other");
  }
  if (hash !== undefined) return { kind: "hash", hash, requireCanonical };
  if (number === undefined) throw invalid("must specify either BlockHash or BlockNumber");
  return number;
}

/** rpc.BlockNumberOrHash.UnmarshalJSON: tag, number, 32-byte hash, or EIP-1898 object. */
export const parseBlockSelector: BlockParser<BlockSelector> = namesBlocks(blockSelector, itself);

function blockSelector(raw: unknown): BlockSelector {
  if (typeof raw !== "string") {
    // Go first decodes into the struct: null decodes to an empty one.
    if (raw === null) throw invalid("must specify either BlockHash or BlockNumber");
    if (typeof raw === "object" && !Array.isArray(raw)) {
      const sel = blockSelectorFromObject(raw as Record<string, unknown>);
      if (sel !== undefined) return sel;
    }
    throw typeError(jsonKind(raw), "string");
  }
  const tag = blockTag(raw);
  if (tag !== undefined) return { kind: "tag", tag };
  if (raw.length <= 66 && raw.length >= 22 && utf8Length(raw) === 66) {
    // common.Hash.UnmarshalText: only the prefix and the digits can be wrong here.
    if (!has0x(raw)) throw invalid(ERR_PREFIX);
    const hash = raw.length === 66 ? unprefixedHexToBytes(raw, 2) : undefined;
    if (hash === undefined) throw invalid(ERR_SYNTAX);
    return { kind: "hash", hash, requireCanonical: false };
  }
  const number = decodeUint64(raw);
  if (number > MAX_INT64) throw invalid("blocknumber too high");
  return { kind: "number", number };
}
