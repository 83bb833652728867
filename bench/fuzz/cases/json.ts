// A JSON value that can also hold verbatim text (huge numbers, broken literals) and objects with
// duplicate keys, which JSON.stringify cannot write.

export class Lit {
  constructor(readonly text: string) {}
}
export class Dup {
  constructor(readonly pairs: readonly (readonly [string, Json])[]) {}
}
export type Json =
  | null
  | boolean
  | number
  | string
  | Lit
  | Dup
  | readonly Json[]
  | { readonly [key: string]: Json };

export function toJson(v: Json): string {
  if (v === null || typeof v === "boolean" || typeof v === "number") return JSON.stringify(v);
  if (typeof v === "string") return JSON.stringify(v);
  if (v instanceof Lit) return v.text;
  if (v instanceof Dup)
    return `{${v.pairs.map(([k, x]) => `${JSON.stringify(k)}:${toJson(x)}`).join(",")}}`;
  if (Array.isArray(v)) return `[${(v as readonly Json[]).map(toJson).join(",")}]`;
  const obj = v as { readonly [key: string]: Json };
  return `{${Object.keys(obj)
    .map((k) => `${JSON.stringify(k)}:${toJson(obj[k]!)}`)
    .join(",")}}`;
}
