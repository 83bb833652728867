// A fast reading of the requests clients actually send: `{"jsonrpc":"2.0","id":1,"method":"…",
// "params":[…]}` with the four keys in lower case and any order, an integer id, plain strings and
// true/false/null as parameters. Such text means the same to JSON.parse, to Go's decoder and to
// the envelope scanner, so it is read in one pass without either. Anything else (escapes, control
// characters, numbers or objects in params, other keys, duplicates, odd ids, trailing bytes) is
// left to the general path, which handles every case the way geth does.
import {
  BACKSLASH,
  COLON,
  COMMA,
  type Envelope,
  LBRACE,
  LBRACKET,
  QUOTE,
  RBRACE,
  RBRACKET,
} from "./wire.ts";

/** One request read by the fast path: its envelope and its parameters (undefined: none given). */
export type SimpleMessage = { readonly env: Envelope; readonly params: unknown[] | undefined };

/** More digits than this and the id is left to the general path (precision and raw echo). */
const MAX_ID_DIGITS = 15;

/** Position scanned to; -1 once the text is outside the fast path's shape. */
let at = 0;

function space(s: string): void {
  let c = s.charCodeAt(at);
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = s.charCodeAt(++at);
}

/** A string without escapes or control characters; undefined (and at = -1) otherwise. */
function plainString(s: string): string | undefined {
  if (s.charCodeAt(at) !== QUOTE) {
    at = -1;
    return undefined;
  }
  const start = ++at;
  for (;;) {
    const c = s.charCodeAt(at);
    if (c === QUOTE) break;
    // NaN past the end fails both tests below and ends the loop through the length check.
    if (c < 0x20 || c === BACKSLASH || at >= s.length) {
      at = -1;
      return undefined;
    }
    at++;
  }
  return s.slice(start, at++);
}

/** The raw text of a non-negative integer id without leading zeros. */
function integerId(s: string): string | undefined {
  const start = at;
  let c = s.charCodeAt(at);
  if (c === 0x30) at++;
  else while (c >= 0x30 && c <= 0x39) c = s.charCodeAt(++at);
  const n = at - start;
  const next = s.charCodeAt(at);
  // "1.5", "1e3", "01": not this shape.
  if (n === 0 || n > MAX_ID_DIGITS || next === 0x2e || next === 0x65 || next === 0x45) {
    at = -1;
    return undefined;
  }
  if (next >= 0x30 && next <= 0x39) {
    at = -1;
    return undefined;
  }
  return s.slice(start, at);
}

function literal(s: string, text: string, value: boolean | null): boolean | null | undefined {
  if (!s.startsWith(text, at)) {
    at = -1;
    return undefined;
  }
  at += text.length;
  return value;
}

function paramsArray(s: string): unknown[] | undefined {
  if (s.charCodeAt(at) !== LBRACKET) {
    at = -1;
    return undefined;
  }
  at++;
  const out: unknown[] = [];
  space(s);
  if (s.charCodeAt(at) === RBRACKET) {
    at++;
    return out;
  }
  for (;;) {
    const c = s.charCodeAt(at);
    let v: unknown;
    if (c === QUOTE) v = plainString(s);
    else if (c === 0x74) v = literal(s, "true", true);
    else if (c === 0x66) v = literal(s, "false", false);
    else if (c === 0x6e) v = literal(s, "null", null);
    else at = -1;
    if (at < 0) return undefined;
    out.push(v);
    space(s);
    const d = s.charCodeAt(at);
    if (d === RBRACKET) {
      at++;
      return out;
    }
    if (d !== COMMA) {
      at = -1;
      return undefined;
    }
    at++;
    space(s);
  }
}

function message(s: string): SimpleMessage | undefined {
  if (s.charCodeAt(at) !== LBRACE) return undefined;
  at++;
  let version: string | undefined;
  let id: string | undefined;
  let method: string | undefined;
  let params: unknown[] | undefined;
  let hasParams = false;
  for (;;) {
    space(s);
    const key = plainString(s);
    if (at < 0) return undefined;
    space(s);
    if (s.charCodeAt(at) !== COLON) return undefined;
    at++;
    space(s);
    // Each key once: a duplicate means Go's last-one-wins rules, left to the general path.
    if (key === "jsonrpc" && version === undefined) version = plainString(s);
    else if (key === "id" && id === undefined) id = integerId(s);
    else if (key === "method" && method === undefined) method = plainString(s);
    else if (key === "params" && !hasParams) {
      hasParams = true;
      params = paramsArray(s);
    } else return undefined;
    if (at < 0) return undefined;
    space(s);
    const c = s.charCodeAt(at);
    at++;
    if (c === RBRACE) break;
    if (c !== COMMA) return undefined;
  }
  if (version === undefined || id === undefined || method === undefined) return undefined;
  return {
    env: {
      version,
      id,
      method,
      paramsKey: hasParams ? "params" : undefined,
      hasResultOrError: false,
    },
    params,
  };
}

function atEnd(s: string): boolean {
  space(s);
  return at === s.length;
}

/** `body` from `start` as one request of the fast path's shape, or undefined. */
export function readSimpleRequest(body: string, start: number): SimpleMessage | undefined {
  at = start;
  const m = message(body);
  return m !== undefined && at >= 0 && atEnd(body) ? m : undefined;
}

/** `body` from `start` (at `[`) as a non-empty batch of such requests, or undefined. */
export function readSimpleBatch(body: string, start: number): SimpleMessage[] | undefined {
  at = start + 1;
  const out: SimpleMessage[] = [];
  for (;;) {
    space(body);
    const m = message(body);
    if (m === undefined || at < 0) return undefined;
    out.push(m);
    space(body);
    const c = body.charCodeAt(at);
    at++;
    if (c === RBRACKET) return atEnd(body) ? out : undefined;
    if (c !== COMMA) return undefined;
  }
}
