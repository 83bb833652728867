// Tiny JSON-text builders: results are written straight to text (no intermediate objects, no
// JSON.stringify) because receipts and blocks are the largest responses on the hot path.
import { bytesToHex, quantity } from "./hex.ts";

/** DATA as a JSON string. */
export function data(bytes: Uint8Array): string {
  return `"${bytesToHex(bytes)}"`;
}

/** DATA or null. */
export function dataOrNull(bytes: Uint8Array | undefined): string {
  return bytes === undefined ? "null" : `"${bytesToHex(bytes)}"`;
}

/** QUANTITY as a JSON string. */
export function qty(value: bigint | number): string {
  return `"${quantity(value)}"`;
}

export function array<T>(items: readonly T[], render: (item: T, index: number) => string): string {
  let out = "[";
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ",";
    out += render(items[i]!, i);
  }
  return `${out}]`;
}

/** An object from [key, json] pairs; pairs with an undefined value are omitted. */
export function object(fields: ReadonlyArray<readonly [string, string | undefined]>): string {
  let out = "{";
  let first = true;
  for (const [key, value] of fields) {
    if (value === undefined) continue;
    if (!first) out += ",";
    out += `"${key}":${value}`;
    first = false;
  }
  return `${out}}`;
}
