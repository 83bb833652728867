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

/**
 * The scanner's position is a field, not a module variable: V8 keeps a field access cheap in
 * optimised loops, where a module-level `let` costs a context load and a hole check each time.
 */
class Reader {
  /** Position scanned to; -1 once the text is outside the fast path's shape. */
  at = 0;
  /** The last method name and the last string at each parameter position. */
  lastMethod: string | undefined;
  readonly lastParams: (string | undefined)[] = [undefined, undefined, undefined, undefined];

  space(s: string): void {
    let c = s.charCodeAt(this.at);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = s.charCodeAt(++this.at);
  }

  /** A string without escapes or control characters; undefined (and at = -1) otherwise. */
  plainString(s: string): string | undefined {
    if (s.charCodeAt(this.at) !== QUOTE) {
      this.at = -1;
      return undefined;
    }
    const start = ++this.at;
    for (;;) {
      const c = s.charCodeAt(this.at);
      if (c === QUOTE) break;
      // NaN past the end fails both tests below and ends the loop through the length check.
      if (c < 0x20 || c === BACKSLASH || this.at >= s.length) {
        this.at = -1;
        return undefined;
      }
      this.at++;
    }
    return s.slice(start, this.at++);
  }

  /**
   * A plain string equal to `prev` is returned as `prev` itself: no new string, and what
   * compares or hashes it later (the method table, the metrics, parseAddress's memo) finds its
   * hash computed or compares by identity. Otherwise as plainString.
   */
  knownString(s: string, prev: string | undefined): string | undefined {
    const at = this.at;
    if (
      prev !== undefined &&
      s.charCodeAt(at) === QUOTE &&
      s.charCodeAt(at + 1 + prev.length) === QUOTE &&
      s.startsWith(prev, at + 1)
    ) {
      this.at = at + prev.length + 2;
      return prev;
    }
    return this.plainString(s);
  }

  /** The raw text of a non-negative integer id without leading zeros. */
  integerId(s: string): string | undefined {
    const start = this.at;
    let c = s.charCodeAt(this.at);
    if (c === 0x30) this.at++;
    else while (c >= 0x30 && c <= 0x39) c = s.charCodeAt(++this.at);
    const n = this.at - start;
    const next = s.charCodeAt(this.at);
    // "1.5", "1e3", "01": not this shape.
    if (n === 0 || n > MAX_ID_DIGITS || next === 0x2e || next === 0x65 || next === 0x45) {
      this.at = -1;
      return undefined;
    }
    if (next >= 0x30 && next <= 0x39) {
      this.at = -1;
      return undefined;
    }
    return s.slice(start, this.at);
  }

  literal(s: string, text: string, value: boolean | null): boolean | null | undefined {
    if (!s.startsWith(text, this.at)) {
      this.at = -1;
      return undefined;
    }
    this.at += text.length;
    return value;
  }

  paramsArray(s: string): unknown[] | undefined {
    if (s.charCodeAt(this.at) !== LBRACKET) {
      this.at = -1;
      return undefined;
    }
    this.at++;
    const out: unknown[] = [];
    this.space(s);
    if (s.charCodeAt(this.at) === RBRACKET) {
      this.at++;
      return out;
    }
    for (let i = 0; ; i++) {
      const c = s.charCodeAt(this.at);
      let v: unknown;
      if (c === QUOTE) {
        if (i < this.lastParams.length) {
          const text = this.knownString(s, this.lastParams[i]);
          this.lastParams[i] = text;
          v = text;
        } else v = this.plainString(s);
      } else if (c === 0x74) v = this.literal(s, "true", true);
      else if (c === 0x66) v = this.literal(s, "false", false);
      else if (c === 0x6e) v = this.literal(s, "null", null);
      else this.at = -1;
      if (this.at < 0) return undefined;
      out.push(v);
      this.space(s);
      const d = s.charCodeAt(this.at);
      if (d === RBRACKET) {
        this.at++;
        return out;
      }
      if (d !== COMMA) {
        this.at = -1;
        return undefined;
      }
      this.at++;
      this.space(s);
    }
  }

  message(s: string): SimpleMessage | undefined {
    if (s.charCodeAt(this.at) !== LBRACE) return undefined;
    this.at++;
    let version: string | undefined;
    let id: string | undefined;
    let method: string | undefined;
    let params: unknown[] | undefined;
    let hasParams = false;
    for (;;) {
      this.space(s);
      const key = this.plainString(s);
      if (this.at < 0) return undefined;
      this.space(s);
      if (s.charCodeAt(this.at) !== COLON) return undefined;
      this.at++;
      this.space(s);
      // Each key once: a duplicate means Go's last-one-wins rules, left to the general path.
      if (key === "jsonrpc" && version === undefined) version = this.knownString(s, "2.0");
      else if (key === "id" && id === undefined) id = this.integerId(s);
      else if (key === "method" && method === undefined) {
        method = this.knownString(s, this.lastMethod);
        this.lastMethod = method;
      } else if (key === "params" && !hasParams) {
        hasParams = true;
        params = this.paramsArray(s);
      } else return undefined;
      if (this.at < 0) return undefined;
      this.space(s);
      const c = s.charCodeAt(this.at);
      this.at++;
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

  atEnd(s: string): boolean {
    this.space(s);
    return this.at === s.length;
  }
}

const r = new Reader();

/** `body` from `start` as one request of the fast path's shape, or undefined. */
export function readSimpleRequest(body: string, start: number): SimpleMessage | undefined {
  r.at = start;
  const m = r.message(body);
  return m !== undefined && r.at >= 0 && r.atEnd(body) ? m : undefined;
}

/** `body` from `start` (at `[`) as a non-empty batch of such requests, or undefined. */
export function readSimpleBatch(body: string, start: number): SimpleMessage[] | undefined {
  r.at = start + 1;
  const out: SimpleMessage[] = [];
  for (;;) {
    r.space(body);
    const m = r.message(body);
    if (m === undefined || r.at < 0) return undefined;
    out.push(m);
    r.space(body);
    const c = body.charCodeAt(r.at);
    r.at++;
    if (c === RBRACKET) return r.atEnd(body) ? out : undefined;
    if (c !== COMMA) return undefined;
  }
}
