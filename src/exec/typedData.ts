// EIP-712 typed structured data hashing (eth_signTypedData_v4): hashStruct of the domain and of
// the message, each the keccak of the type hash and the fields' 32-byte encodings.
import { keccak256 } from "../util/crypto.ts";
import { FlashnodeError } from "../util/errors.ts";

/** The typed data is not valid EIP-712 (anvil answers -32602 with such a message). */
export class TypedDataError extends FlashnodeError {
  readonly code = "TYPED_DATA";
}

type Field = { readonly name: string; readonly type: string };
type Types = Readonly<Record<string, readonly Field[]>>;

const utf8 = new TextEncoder();

/** The fields of EIP712Domain that may appear, in the standard's order. */
const DOMAIN_FIELDS: readonly Field[] = [
  { name: "name", type: "string" },
  { name: "version", type: "string" },
  { name: "chainId", type: "uint256" },
  { name: "verifyingContract", type: "address" },
  { name: "salt", type: "bytes32" },
];

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function parseTypes(raw: unknown): Types {
  if (!isRecord(raw)) throw new TypedDataError("typed data has no types");
  const out: Record<string, Field[]> = {};
  for (const [name, fields] of Object.entries(raw)) {
    if (!Array.isArray(fields)) throw new TypedDataError(`type ${name} is not a list of fields`);
    out[name] = fields.map((f) => {
      if (!isRecord(f) || typeof f.name !== "string" || typeof f.type !== "string")
        throw new TypedDataError(`type ${name} has a field without a name and a type`);
      return { name: f.name, type: f.type };
    });
  }
  return out;
}

/** `Type[]` or `Type[3]` → `Type`. */
function baseType(type: string): string {
  const i = type.indexOf("[");
  return i < 0 ? type : type.slice(0, i);
}

/** The struct types `primary` refers to, directly or not, without itself. */
function dependencies(types: Types, primary: string, found = new Set<string>()): Set<string> {
  for (const f of types[primary] ?? []) {
    const t = baseType(f.type);
    if (types[t] !== undefined && !found.has(t) && t !== primary) {
      found.add(t);
      dependencies(types, t, found);
    }
  }
  return found;
}

function encodeType(types: Types, primary: string): string {
  const deps = [...dependencies(types, primary)].filter((t) => t !== primary).sort();
  return [primary, ...deps]
    .map((t) => `${t}(${(types[t] ?? []).map((f) => `${f.type} ${f.name}`).join(",")})`)
    .join("");
}

function toBigInt(value: unknown, type: string): bigint {
  try {
    if (typeof value === "bigint") return value;
    if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value);
    if (typeof value === "string" && value.trim() !== "") return BigInt(value.trim());
  } catch {}
  throw new TypedDataError(`invalid ${type} value ${JSON.stringify(value)}`);
}

function hexBytes(value: unknown, type: string): Uint8Array {
  if (typeof value !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(value))
    throw new TypedDataError(`invalid ${type} value ${JSON.stringify(value)}`);
  return Buffer.from(value.slice(2), "hex");
}

function word(n: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let v = n;
  for (let i = 31; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

function encodeAtomic(type: string, value: unknown): Uint8Array {
  if (type === "address") {
    const bytes = hexBytes(value, type);
    if (bytes.length !== 20) throw new TypedDataError(`invalid address ${JSON.stringify(value)}`);
    const out = new Uint8Array(32);
    out.set(bytes, 12);
    return out;
  }
  if (type === "bool") {
    if (typeof value !== "boolean" && value !== "true" && value !== "false")
      throw new TypedDataError(`invalid bool value ${JSON.stringify(value)}`);
    return word(value === true || value === "true" ? 1n : 0n);
  }
  const bytesN = /^bytes(\d+)$/.exec(type);
  if (bytesN !== null) {
    const size = Number(bytesN[1]);
    const bytes = hexBytes(value, type);
    if (size < 1 || size > 32 || bytes.length > size)
      throw new TypedDataError(`invalid ${type} value ${JSON.stringify(value)}`);
    const out = new Uint8Array(32);
    out.set(bytes, 0);
    return out;
  }
  const int = /^(u?)int(\d*)$/.exec(type);
  if (int !== null) {
    const bits = int[2] === "" ? 256 : Number(int[2]);
    const n = toBigInt(value, type);
    const signed = int[1] === "";
    const min = signed ? -(1n << BigInt(bits - 1)) : 0n;
    const max = signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n;
    if (bits < 8 || bits > 256 || bits % 8 !== 0 || n < min || n > max)
      throw new TypedDataError(`invalid ${type} value ${JSON.stringify(value)}`);
    return word(n < 0n ? (1n << 256n) + n : n);
  }
  throw new TypedDataError(`unknown type ${type}`);
}

function encodeField(types: Types, type: string, value: unknown): Uint8Array {
  if (type.endsWith("]")) {
    const open = type.lastIndexOf("[");
    const inner = type.slice(0, open);
    const size = type.slice(open + 1, -1);
    if (!Array.isArray(value)) throw new TypedDataError(`${type} value is not an array`);
    if (size !== "" && Number(size) !== value.length)
      throw new TypedDataError(`${type} value has ${value.length} elements`);
    return keccak256(Buffer.concat(value.map((v) => encodeField(types, inner, v))));
  }
  if (types[type] !== undefined) return hashStruct(types, type, value);
  if (type === "string") {
    if (typeof value !== "string") throw new TypedDataError("invalid string value");
    return keccak256(utf8.encode(value));
  }
  if (type === "bytes") return keccak256(hexBytes(value, type));
  return encodeAtomic(type, value);
}

function hashStruct(types: Types, primary: string, value: unknown): Uint8Array {
  if (!isRecord(value)) throw new TypedDataError(`${primary} value is not an object`);
  const parts: Uint8Array[] = [keccak256(utf8.encode(encodeType(types, primary)))];
  for (const f of types[primary] ?? []) {
    // An absent field of a struct encodes as its zero value (ethers and alloy agree).
    const v = value[f.name];
    parts.push(v === undefined ? new Uint8Array(32) : encodeField(types, f.type, v));
  }
  return keccak256(Buffer.concat(parts));
}

/** The digest an EIP-712 signature signs: keccak(0x1901 ‖ domain separator ‖ message hash). */
export function typedDataDigest(raw: unknown): Uint8Array {
  const data = typeof raw === "string" ? parseJson(raw) : raw;
  if (!isRecord(data)) throw new TypedDataError("typed data is not an object");
  const types: Record<string, readonly Field[]> = { ...parseTypes(data.types) };
  const domain = isRecord(data.domain) ? data.domain : {};
  // Without a declared EIP712Domain, it is the fields the domain has (ethers and alloy do so).
  types.EIP712Domain ??= DOMAIN_FIELDS.filter((f) => domain[f.name] !== undefined);
  const primary = data.primaryType;
  if (typeof primary !== "string" || types[primary] === undefined)
    throw new TypedDataError(`primary type ${String(primary)} is not among the types`);
  const parts = [Uint8Array.of(0x19, 0x01), hashStruct(types, "EIP712Domain", domain)];
  if (primary !== "EIP712Domain") parts.push(hashStruct(types, primary, data.message));
  return keccak256(Buffer.concat(parts));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new TypedDataError("typed data is not JSON");
  }
}
