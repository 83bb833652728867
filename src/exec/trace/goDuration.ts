// Go's time.ParseDuration (geth reads a trace's `timeout` with it), to milliseconds, with its
// error texts.

import { FlashnodeError } from "../../util/errors.ts";

const UNITS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  µs: 1e3,
  μs: 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

const MAX_NANOS = 2n ** 63n;

/** time's quote(): quotes and backslashes escaped, other control or non-ASCII bytes as \xNN. */
function quote(s: string): string {
  let out = '"';
  for (const c of s) {
    const code = c.codePointAt(0)!;
    if (code >= 0x80 || code < 0x20) {
      for (const b of Buffer.from(c, "utf8")) out += `\\x${b.toString(16).padStart(2, "0")}`;
    } else out += c === '"' || c === "\\" ? `\\${c}` : c;
  }
  return `${out}"`;
}

export class DurationError extends FlashnodeError {
  readonly code = "DURATION";
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

/** A duration like "300ms", "1.5h" or "2h45m" in milliseconds (negative allowed). */
export function parseGoDuration(orig: string): number {
  const invalid = () => new DurationError(`time: invalid duration ${quote(orig)}`);
  let s = orig;
  let negative = false;
  if (s !== "" && (s[0] === "-" || s[0] === "+")) {
    negative = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0;
  if (s === "") throw invalid();
  let nanos = 0n;
  while (s !== "") {
    if (!(s[0] === "." || isDigit(s[0]))) throw invalid();
    let i = 0;
    while (isDigit(s[i])) i++;
    const whole = s.slice(0, i);
    s = s.slice(i);
    let fraction = "";
    if (s[0] === ".") {
      let j = 1;
      while (isDigit(s[j])) j++;
      fraction = s.slice(1, j);
      if (j === 1 && whole === "") throw invalid();
      s = s.slice(j);
    } else if (whole === "") throw invalid();
    let u = 0;
    while (u < s.length && s[u] !== "." && !isDigit(s[u])) u++;
    if (u === 0) throw new DurationError(`time: missing unit in duration ${quote(orig)}`);
    const unitName = s.slice(0, u);
    s = s.slice(u);
    const unit = UNITS[unitName];
    if (unit === undefined)
      throw new DurationError(`time: unknown unit ${quote(unitName)} in duration ${quote(orig)}`);
    const scale = BigInt(unit);
    let value = BigInt(whole === "" ? "0" : whole) * scale;
    if (fraction !== "") value += (BigInt(fraction) * scale) / 10n ** BigInt(fraction.length);
    nanos += value;
    if (nanos > MAX_NANOS || (nanos === MAX_NANOS && !negative)) throw invalid();
  }
  const ms = Number(nanos) / 1e6;
  return negative ? -ms : ms;
}
