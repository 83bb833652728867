// Go-compatible JSON helpers for the JSON-RPC envelope. geth echoes the raw bytes of `id`
// and matches struct keys case-insensitively, which JSON.parse alone cannot reproduce, so a
// small scanner walks the (already validated) text to find the raw spans.

import type { RpcErrorObject } from "../services/errors.ts";
import { MAX_JSON_NESTING_DEPTH } from "./limits.ts";

// JSON's structural characters, as char codes (shared with simpleRequest.ts).
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const LBRACE = 0x7b;
export const RBRACE = 0x7d;
export const LBRACKET = 0x5b;
export const RBRACKET = 0x5d;

export function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

export function skipSpace(s: string, i: number): number {
  while (i < s.length && isJsonSpace(s.charCodeAt(i))) i++;
  return i;
}

/** `i` at an opening quote; returns the index after the closing quote, -1 if unterminated. */
export function skipString(s: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = s.indexOf('"', from);
    if (q < 0) return -1;
    let k = q - 1;
    while (s.charCodeAt(k) === BACKSLASH) k--;
    if ((q - 1 - k) % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/**
 * End of the value starting at `i` in validated JSON; -1 when nesting exceeds Go's limit
 * (`depth` = containers already open around it).
 */
export function skipValue(s: string, i: number, depth: number): number {
  const c = s.charCodeAt(i);
  if (c === QUOTE) return skipString(s, i);
  if (c === LBRACE || c === LBRACKET) {
    let d = 0;
    for (let j = i; j < s.length; j++) {
      const ch = s.charCodeAt(j);
      if (ch === QUOTE) {
        j = skipString(s, j) - 1;
      } else if (ch === LBRACE || ch === LBRACKET) {
        if (depth + ++d > MAX_JSON_NESTING_DEPTH) return -1;
      } else if (ch === RBRACE || ch === RBRACKET) {
        if (--d === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i + 1;
  while (j < s.length) {
    const ch = s.charCodeAt(j);
    if (ch === COMMA || ch === RBRACE || ch === RBRACKET || isJsonSpace(ch)) break;
    j++;
  }
  return j;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function numberEnd(s: string, i: number): number {
  let j = i;
  if (s.charCodeAt(j) === 0x2d) j++;
  if (s.charCodeAt(j) === 0x30) j++;
  else if (isDigit(s.charCodeAt(j))) while (isDigit(s.charCodeAt(j))) j++;
  else return -1;
  if (s.charCodeAt(j) === 0x2e) {
    j++;
    if (!isDigit(s.charCodeAt(j))) return -1;
    while (isDigit(s.charCodeAt(j))) j++;
  }
  const e = s.charCodeAt(j);
  if (e === 0x65 || e === 0x45) {
    j++;
    const sign = s.charCodeAt(j);
    if (sign === 0x2b || sign === 0x2d) j++;
    if (!isDigit(s.charCodeAt(j))) return -1;
    while (isDigit(s.charCodeAt(j))) j++;
  }
  return j;
}

/**
 * End of the first value starting at `i` in possibly invalid text, following Go's
 * json.Decoder: bytes after a complete top-level value are ignored (`01` reads as `0`).
 * The structural end is returned; the caller validates the slice. -1 when malformed.
 */
export function firstValueEnd(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === QUOTE) return skipString(s, i);
  if (c === LBRACE || c === LBRACKET) {
    let d = 0;
    for (let j = i; j < s.length; j++) {
      const ch = s.charCodeAt(j);
      if (ch === QUOTE) {
        const end = skipString(s, j);
        if (end < 0) return -1;
        j = end - 1;
      } else if (ch === LBRACE || ch === LBRACKET) {
        d++;
      } else if (ch === RBRACE || ch === RBRACKET) {
        if (--d === 0) return j + 1;
      }
    }
    return -1;
  }
  if (c === 0x2d || isDigit(c)) return numberEnd(s, i);
  for (const lit of ["true", "false", "null"]) {
    if (s.startsWith(lit, i)) return i + lit.length;
  }
  return -1;
}

/** The envelope fields of one message, as geth's jsonrpcMessage decodes them. */
export type Envelope = {
  /** `jsonrpc` if it was a JSON string, else "". */
  version: string;
  /** Raw text of `id`, undefined when the key is absent. */
  id: string | undefined;
  /** `method` if it was a JSON string, else "". */
  method: string;
  /** The exact key holding `params` in the parsed object, undefined when absent. */
  paramsKey: string | undefined;
  hasResultOrError: boolean;
};

// Field ids after Go's case folding (bytes.EqualFold: ASCII plus U+212A→k, U+017F→s).
const F_NONE = 0;
const F_VERSION = 1;
const F_ID = 2;
const F_METHOD = 3;
const F_PARAMS = 4;
const F_RESULT = 5;

function fieldOf(key: string): number {
  switch (key) {
    case "jsonrpc":
      return F_VERSION;
    case "id":
      return F_ID;
    case "method":
      return F_METHOD;
    case "params":
      return F_PARAMS;
    case "result":
    case "error":
      return F_RESULT;
  }
  if (key.length < 2 || key.length > 7) return F_NONE;
  const folded = goFold(key);
  return folded === key ? F_NONE : fieldOf(folded);
}

/**
 * Folds an ASCII key the way Go's encoding/json matches struct fields (bytes.EqualFold):
 * ASCII case plus the two non-ASCII letters that fold into ASCII (U+212A K, U+017F ſ).
 */
export function goFold(key: string): string {
  let out = "";
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) out += String.fromCharCode(c + 32);
    else if (c === 0x212a) out += "k";
    else if (c === 0x17f) out += "s";
    else out += key[i];
  }
  return out;
}

function decodeString(s: string, start: number, end: number): string {
  const raw = s.slice(start + 1, end - 1);
  return raw.includes("\\") ? (JSON.parse(s.slice(start, end)) as string) : raw;
}

/**
 * Scans the object at `i` (validated JSON). Later duplicates win; string fields keep the
 * last value that was a string, as Go leaves a field untouched on a type mismatch.
 * Returns the end index, or -1 when nesting is too deep.
 */
export function scanEnvelope(s: string, i: number, depth: number, out: Envelope): number {
  out.version = "";
  out.id = undefined;
  out.method = "";
  out.paramsKey = undefined;
  out.hasResultOrError = false;
  if (depth + 1 > MAX_JSON_NESTING_DEPTH) return -1;
  let j = skipSpace(s, i + 1);
  if (s.charCodeAt(j) === RBRACE) return j + 1;
  for (;;) {
    const keyEnd = skipString(s, j);
    const key = decodeString(s, j, keyEnd);
    const field = fieldOf(key);
    j = skipSpace(s, keyEnd);
    if (s.charCodeAt(j) !== COLON) return -1;
    const v = skipSpace(s, j + 1);
    const end = skipValue(s, v, depth + 1);
    if (end < 0) return -1;
    const isString = s.charCodeAt(v) === QUOTE;
    if (field === F_VERSION && isString) out.version = decodeString(s, v, end);
    else if (field === F_ID) out.id = s.slice(v, end);
    else if (field === F_METHOD && isString) out.method = decodeString(s, v, end);
    else if (field === F_PARAMS) out.paramsKey = key;
    else if (field === F_RESULT) out.hasResultOrError = true;
    j = skipSpace(s, end);
    const c = s.charCodeAt(j);
    if (c === RBRACE) return j + 1;
    if (c !== COMMA) return -1;
    j = skipSpace(s, j + 1);
  }
}

// Characters Go's encoding/json escapes (HTML-safe by default), plus lone surrogates,
// which Go would have decoded to U+FFFD.
function needsGoEscape(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === QUOTE || c === BACKSLASH || c === 0x3c || c === 0x3e || c === 0x26) {
      return true;
    }
    if (c === 0x2028 || c === 0x2029 || (c >= 0xd800 && c <= 0xdfff)) return true;
  }
  return false;
}
const HEX = "0123456789abcdef";

/** A JSON string literal exactly as Go's json.Marshal writes it. */
export function goJsonString(s: string): string {
  if (!needsGoEscape(s)) return `"${s}"`;
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === QUOTE) out += '\\"';
    else if (c === BACKSLASH) out += "\\\\";
    else if (c === 0x0a) out += "\\n";
    else if (c === 0x0d) out += "\\r";
    else if (c === 0x09) out += "\\t";
    else if (c === 0x08) out += "\\b";
    else if (c === 0x0c) out += "\\f";
    else if (c < 0x20 || c === 0x3c || c === 0x3e || c === 0x26) {
      out += `\\u00${HEX[c >> 4]}${HEX[c & 15]}`;
    } else if (c === 0x2028 || c === 0x2029) out += `\\u${c.toString(16)}`;
    else if (c >= 0xd800 && c <= 0xdbff && isLowSurrogate(s.charCodeAt(i + 1))) {
      out += s[i]! + s[i + 1]!;
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) out += "\ufffd";
    else out += s[i];
  }
  return `${out}"`;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Go's strconv.Quote (`%q`): printable runes kept, others escaped. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    let r = ch.codePointAt(0)!;
    if (r >= 0xd800 && r <= 0xdfff) r = 0xfffd; // lone surrogate: Go decoded it to U+FFFD
    if (r === QUOTE || r === BACKSLASH) out += `\\${ch}`;
    else if (PRINTABLE.test(ch)) out += ch;
    else if (r === 0xfffd) out += "\ufffd";
    else if (r === 0x07) out += "\\a";
    else if (r === 0x08) out += "\\b";
    else if (r === 0x0c) out += "\\f";
    else if (r === 0x0a) out += "\\n";
    else if (r === 0x0d) out += "\\r";
    else if (r === 0x09) out += "\\t";
    else if (r === 0x0b) out += "\\v";
    else if (r < 0x20 || r === 0x7f) out += `\\x${HEX[r >> 4]}${HEX[r & 15]}`;
    else if (r < 0x10000) out += `\\u${r.toString(16).padStart(4, "0")}`;
    else out += `\\U${r.toString(16).padStart(8, "0")}`;
  }
  return `${out}"`;
}

/** UTF-8 byte length as Go sees the decoded string (a lone surrogate is U+FFFD: 3 bytes). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && isLowSurrogate(s.charCodeAt(i + 1))) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** `{"code":…,"message":…[,"data":…]}` with the message encoded as Go's json.Marshal does. */
export function encodeRpcError(e: RpcErrorObject): string {
  const head = `{"code":${e.code},"message":${goJsonString(e.message)}`;
  if (e.data === undefined) return `${head}}`;
  let data: string | undefined;
  try {
    data = JSON.stringify(e.data);
  } catch {
    data = undefined; // unserializable data (bigint, cycle): geth would drop it too
  }
  return data === undefined ? `${head}}` : `${head},"data":${data}}`;
}
