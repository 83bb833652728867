// A transaction object as JSON-RPC shows it (eth_getBlockByNumber(n, true), eth_getTransactionBy*),
// back to its EIP-2718 encoding: legacy, 2930, 1559, 4844 (the block's form, without sidecar),
// 7702 and OP-stack deposits. Written field by field rather than through the EVM library's
// transaction classes, so a transaction of any chain and fork encodes as it was signed, and
// checked against the object's `hash`: a provider's field flashnode does not read is caught
// here, not as a wrong state root later.
import { type Input, RLP } from "@ethereumjs/rlp";
import { keccak256 } from "../util/crypto.ts";
import { FlashnodeError } from "../util/errors.ts";
import {
  bytesToBigInt,
  bytesToHex,
  equalBytes,
  trimLeadingZeros,
  unprefixedHexToBytes,
} from "../util/hex.ts";
import { encodeDeposit } from "./op/depositTx.ts";

export class TransactionJsonError extends FlashnodeError {
  readonly code = "TRANSACTION_JSON";
}

type Json = Readonly<Record<string, unknown>>;

const EMPTY = new Uint8Array(0);
const DEPOSIT = 0x7e;

/**
 * A JSON `0x`-hex value's bytes, undefined when it is not hex. A QUANTITY may have an odd digit
 * count ("0x0") and comes back as RLP wants it: without leading zeros (zero is empty).
 */
export function jsonHex(v: unknown, quantity: boolean): Uint8Array | undefined {
  if (typeof v !== "string" || !v.startsWith("0x")) return undefined;
  const bytes = unprefixedHexToBytes(quantity && v.length % 2 === 1 ? `0x0${v.slice(2)}` : v, 2);
  return quantity && bytes !== undefined ? trimLeadingZeros(bytes) : bytes;
}

/** One transaction object being read: every error names its hash and type. */
class TxReader {
  constructor(
    private readonly tx: Json,
    readonly label: string,
  ) {}

  fail(why: string): TransactionJsonError {
    return new TransactionJsonError(`${this.label}: ${why}`);
  }

  present(key: string, o: Json = this.tx): boolean {
    return o[key] !== undefined && o[key] !== null;
  }

  /** A field's value; `at` is where its object lies in the transaction, for messages. */
  need(key: string, o: Json = this.tx, at = ""): unknown {
    if (!this.present(key, o)) throw this.fail(`field ${at}${key} is missing`);
    return o[key];
  }

  hex(path: string, v: unknown, quantity: boolean, length?: number): Uint8Array {
    const bytes = jsonHex(v, quantity);
    if (bytes === undefined) throw this.fail(`field ${path} is not hex: ${JSON.stringify(v)}`);
    if (length !== undefined && bytes.length !== length)
      throw this.fail(`field ${path} is ${bytes.length} bytes, not ${length}`);
    return bytes;
  }

  /** A QUANTITY as RLP wants it: big-endian without leading zeros (zero is empty). */
  quantity(key: string, o: Json = this.tx, at = ""): Uint8Array {
    return this.hex(at + key, this.need(key, o, at), true);
  }

  data(key: string, length?: number, o: Json = this.tx, at = ""): Uint8Array {
    return this.hex(at + key, this.need(key, o, at), false, length);
  }

  /** `to`: null (or absent) for a contract creation, which RLP encodes as empty bytes. */
  to(): Uint8Array {
    return this.present("to") ? this.data("to", 20) : EMPTY;
  }

  /** Calldata: `input` as geth names it, `data` as some providers do. */
  input(): Uint8Array {
    if (this.present("input")) return this.data("input");
    if (this.present("data")) return this.data("data");
    throw this.fail("field input (or data) is missing");
  }

  /** A typed signature's parity: `yParity`, else `v` (0/1, or 27/28 from some providers). */
  parity(o: Json = this.tx, at = ""): Uint8Array {
    const key = this.present("yParity", o) ? "yParity" : "v";
    if (!this.present(key, o)) throw this.fail(`field ${at}yParity (or v) is missing`);
    const n = bytesToBigInt(this.quantity(key, o, at));
    if (n === 0n || n === 27n) return EMPTY;
    if (n === 1n || n === 28n) return Uint8Array.of(1);
    throw this.fail(`field ${at}${key} is ${String(o[key])}, not a y-parity`);
  }

  signature(): Input[] {
    return [this.parity(), this.quantity("r"), this.quantity("s")];
  }

  list(key: string, o: Json = this.tx, at = ""): readonly unknown[] {
    const v = this.need(key, o, at);
    if (!Array.isArray(v)) throw this.fail(`field ${at}${key} is not a list`);
    return v;
  }

  object(path: string, v: unknown): Json {
    if (typeof v !== "object" || v === null || Array.isArray(v))
      throw this.fail(`field ${path} is not an object`);
    return v as Json;
  }

  accessList(): Input[] {
    return this.list("accessList").map((entry, i) => {
      const at = `accessList[${i}].`;
      const e = this.object(`accessList[${i}]`, entry);
      const keys = this.list("storageKeys", e, at);
      return [
        this.data("address", 20, e, at),
        keys.map((k, j) => this.hex(`${at}storageKeys[${j}]`, k, false, 32)),
      ];
    });
  }

  /** EIP-7702 tuples: [chainId, address, nonce, yParity, r, s]. */
  authorizationList(): Input[] {
    return this.list("authorizationList").map((entry, i) => {
      const at = `authorizationList[${i}].`;
      const a = this.object(`authorizationList[${i}]`, entry);
      return [
        this.quantity("chainId", a, at),
        this.data("address", 20, a, at),
        this.quantity("nonce", a, at),
        this.parity(a, at),
        this.quantity("r", a, at),
        this.quantity("s", a, at),
      ];
    });
  }

  blobVersionedHashes(): Input[] {
    return this.list("blobVersionedHashes").map((h, i) =>
      this.hex(`blobVersionedHashes[${i}]`, h, false, 32),
    );
  }

  /** `isSystemTx`: absent is false. */
  flag(key: string): boolean {
    const v = this.tx[key];
    if (v === undefined || v === null) return false;
    if (typeof v !== "boolean") throw this.fail(`field ${key} is not a boolean: ${String(v)}`);
    return v;
  }
}

function typeOf(tx: Json, hash: string): number {
  const t = tx.type;
  // Providers from before EIP-2718 show no type: a legacy transaction.
  if (t === undefined || t === null) return 0;
  if (typeof t === "string" && /^0x[0-9a-fA-F]{1,2}$/.test(t)) return Number.parseInt(t, 16);
  throw new TransactionJsonError(
    `transaction ${hash} has type ${JSON.stringify(t)}: a transaction type flashnode does not know`,
  );
}

function typed(type: number, fields: Input[]): Uint8Array {
  const payload = RLP.encode(fields);
  const out = new Uint8Array(payload.length + 1);
  out[0] = type;
  out.set(payload, 1);
  return out;
}

function encode(r: TxReader, type: number): Uint8Array {
  const q = (name: string) => r.quantity(name);
  switch (type) {
    case 0:
      // v carries the chain id (EIP-155) or is 27/28 (before it): either way as shown.
      return RLP.encode([
        q("nonce"),
        q("gasPrice"),
        q("gas"),
        r.to(),
        q("value"),
        r.input(),
        q("v"),
        q("r"),
        q("s"),
      ]);
    case 1:
      return typed(type, [
        q("chainId"),
        q("nonce"),
        q("gasPrice"),
        q("gas"),
        r.to(),
        q("value"),
        r.input(),
        r.accessList(),
        ...r.signature(),
      ]);
    case 2:
    case 3:
    case 4: {
      const common = [
        q("chainId"),
        q("nonce"),
        q("maxPriorityFeePerGas"),
        q("maxFeePerGas"),
        q("gas"),
        // Blob and set-code transactions cannot create: `to` is required.
        type === 2 ? r.to() : r.data("to", 20),
        q("value"),
        r.input(),
        r.accessList(),
      ];
      const extra =
        type === 3
          ? [q("maxFeePerBlobGas"), r.blobVersionedHashes()]
          : type === 4
            ? [r.authorizationList()]
            : [];
      return typed(type, [...common, ...extra, ...r.signature()]);
    }
    case DEPOSIT:
      return encodeDeposit({
        sourceHash: r.data("sourceHash", 32),
        from: r.data("from", 20),
        to: r.present("to") ? r.data("to", 20) : undefined,
        mint: r.present("mint") ? bytesToBigInt(q("mint")) : 0n,
        value: bytesToBigInt(q("value")),
        gasLimit: bytesToBigInt(q("gas")),
        isSystemTx: r.flag("isSystemTx"),
        data: r.input(),
      });
    default:
      throw r.fail("a transaction type flashnode does not know");
  }
}

/**
 * The EIP-2718 encoding of a JSON-RPC transaction object (a legacy transaction's is its RLP
 * list). Throws TransactionJsonError, naming the transaction's hash and type, when a field is
 * missing or malformed, the type is unknown, or the encoding does not hash to `hash`.
 */
export function rawTransactionFromJson(tx: Json): Uint8Array {
  const shownHash = typeof tx.hash === "string" ? tx.hash : "(no hash)";
  const type = typeOf(tx, shownHash);
  const r = new TxReader(tx, `transaction ${shownHash} (type 0x${type.toString(16)})`);
  const hash = r.data("hash", 32);
  const raw = encode(r, type);
  const got = keccak256(raw);
  if (!equalBytes(got, hash))
    throw r.fail(
      `its fields encode to a transaction hashing to ${bytesToHex(got)}: the chain's transaction carries a field flashnode does not know`,
    );
  return raw;
}
