// Case generators of the fuzz harness (bench/fuzz.ts). Case i of seed S is a pure function of
// (S, i), so any case can be replayed alone (`--replay i`) whatever the concurrency was.
import { isUtf8 } from "node:buffer";

/** The node's HTTP body limit (geth's 5 MiB): above it with a Content-Length → 413. */
export const BODY_LIMIT = 5 * 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// PRNG: sfc32 seeded through splitmix32 from (seed, stream).

function splitmix32(x: number): number {
  let z = (x + 0x9e3779b9) | 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number, stream: number) {
    this.a = splitmix32(seed);
    this.b = splitmix32(this.a ^ stream);
    this.c = splitmix32(this.b + Math.imul(stream, 0x27d4eb2d));
    this.d = splitmix32(this.c ^ 0x165667b1);
    for (let i = 0; i < 12; i++) this.next();
  }

  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, n). */
  int(n: number): number {
    return Math.floor((this.next() / 0x1_0000_0000) * n);
  }

  /** Uniform in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() / 0x1_0000_0000 < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** A weighted choice from [weight, value] pairs. */
  weighted<T>(table: readonly (readonly [number, T])[]): T {
    let total = 0;
    for (const [w] of table) total += w;
    let r = (this.next() / 0x1_0000_0000) * total;
    for (const [w, v] of table) {
      r -= w;
      if (r < 0) return v;
    }
    return table[table.length - 1]![1];
  }

  bytes(n: number): Buffer {
    const out = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) out[i] = this.next() & 0xff;
    return out;
  }

  hex(nBytes: number): string {
    return this.bytes(nBytes).toString("hex");
  }
}

// ---------------------------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------------------------
// Cases.

export const CASE_KINDS = [
  "valid-call",
  "wrong-types",
  "malformed-json",
  "batch",
  "oversized",
  "content-type",
  "http-method",
  "rpc-key",
  "http-misc",
  "raw-http",
  "slow-body",
  "stall",
  "dropped",
  "ws-rpc",
  "ws-raw",
  "ws-stream",
] as const;
export type CaseKind = (typeof CASE_KINDS)[number];

/** What the harness knows about the target when it generates cases. */
export type CaseEnv = {
  /** `/rpc/<key>` of a usable dedicated key, when the node has the endpoint. */
  readonly dedicatedPath: string | undefined;
  /** The status an unknown key gets (401 with the endpoint, 404 before it existed). */
  readonly badKeyStatus: number;
  /** Addresses with state (the dev accounts). */
  readonly accounts: readonly string[];
};

type Base = { readonly index: number; readonly kind: CaseKind; readonly variant: string };

/** A request sent with node:http (keep-alive agent unless `fresh`). */
export type HttpCase = Base & {
  readonly transport: "http";
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** Send without Content-Length (chunked). */
  readonly chunked: boolean;
  /** Statuses that are correct for this request. */
  readonly expect: readonly number[];
  /** A 200 body must be a JSON-RPC response (false for /metrics, /healthz, …). */
  readonly jsonrpc: boolean;
  /** The id the single response must echo, when the request had a plain one. */
  readonly expectId?: { readonly value: unknown };
  /** A connection error is an acceptable outcome (the server may cut an oversized upload). */
  readonly mayDrop: boolean;
};

export type RawStep = { readonly data: Buffer; readonly delayMs: number };

/** Bytes written on a node:net socket, step by step. */
export type RawCase = Base & {
  readonly transport: "raw";
  readonly steps: readonly RawStep[];
  /** read: wait for answers; hang: hold the socket open `holdMs` then cut it; close: cut it. */
  readonly after: "read" | "hang" | "close";
  readonly holdMs: number;
  /** HTTP answers expected in `read` mode (0: any number, including none). */
  readonly responses: number;
  readonly expect: readonly number[];
  readonly jsonrpc: boolean;
};

export type WsFrame = { readonly data: Buffer; readonly binary: boolean };

/** A WebSocket session with the `ws` client. */
export type WsCase = Base & {
  readonly transport: "ws";
  readonly path: string;
  /** /flashblocks: messages are stream payloads, not JSON-RPC answers. */
  readonly stream: boolean;
  readonly frames: readonly WsFrame[];
  /** Send one eth_chainId after the frames and require its answer (if the socket is open). */
  readonly sentinel: boolean;
  /** How long to keep reading after the frames. */
  readonly listenMs: number;
};

export type FuzzCase = HttpCase | RawCase | WsCase;

type Route = { readonly path: string; readonly public: boolean };

// ---------------------------------------------------------------------------------------------
// Values.

const TAGS = ["latest", "earliest", "pending", "safe", "finalized"] as const;
const PRECOMPILES = Array.from(
  { length: 0x11 },
  (_, i) => `0x${(i + 1).toString(16).padStart(40, "0")}`,
);
const SYSTEM = [
  "0x000f3df6d732807ef1319fb7b8bb8522d0beac02",
  "0x0000f90827f1c53a10cb7a02335b175320002935",
  "0x00000961ef480eb55e80d19ad83579a64c007002",
  "0x0000bbddc7ce488642fb579f8b00f3a590007251",
  "0x4200000000000000000000000000000000000011",
];

function randomCase(rng: Rng, s: string): string {
  return [...s].map((c) => (rng.chance(0.5) ? c.toUpperCase() : c)).join("");
}

function junkString(rng: Rng): string {
  return rng.pick([
    "",
    " ",
    "0x",
    "0X",
    "x",
    "null",
    "undefined",
    "NaN",
    "\u0000",
    "\ud800",
    "ünïcödé",
    "🦊",
    "0x\u0000",
    "%00",
    "../../etc/passwd",
    "<script>",
    "a".repeat(rng.range(100, 5000)),
  ]);
}

/** Anything of the wrong JSON type. */
function junkValue(rng: Rng, depth = 0): Json {
  const v = rng.int(depth > 2 ? 9 : 12);
  switch (v) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
      return rng.pick([0, 1, -1, 1.5, -0, 2 ** 53, 2 ** 64, 1e308]);
    case 3:
      return new Lit(
        rng.pick(["1e400", "-1e400", "123456789012345678901234567890", "0.0000000001e-400", "-0"]),
      );
    case 4:
      return junkString(rng);
    case 5:
      return `0x${rng.hex(rng.range(0, 40))}`;
    case 6:
      return [];
    case 7:
      return {};
    case 8:
      return rng.pick(["latest", "pending", "0x1", "0x01", "true"]);
    case 9:
      return [junkValue(rng, depth + 1), junkValue(rng, depth + 1)];
    case 10:
      return { a: junkValue(rng, depth + 1), "": junkValue(rng, depth + 1) };
    default:
      return new Dup([
        ["x", junkValue(rng, depth + 1)],
        ["x", junkValue(rng, depth + 1)],
      ]);
  }
}

function address(rng: Rng, env: CaseEnv): Json {
  return rng.weighted<() => Json>([
    [5, () => rng.pick(env.accounts)],
    [3, () => `0x${rng.hex(20)}`],
    [1, () => rng.pick(PRECOMPILES)],
    [1, () => rng.pick(SYSTEM)],
    [1, () => `0x${randomCase(rng, rng.hex(20))}`],
    [1, () => `0x${rng.hex(19)}`],
    [1, () => `0x${rng.hex(21)}`],
    [1, () => `0x${rng.hex(20).slice(1)}`],
    [1, () => rng.hex(20)],
    [1, () => `0X${rng.hex(20)}`],
    [1, () => `0x${rng.hex(20).slice(0, 39)}g`],
    [1, () => junkValue(rng)],
  ])();
}

function hash(rng: Rng): Json {
  return rng.weighted<() => Json>([
    [4, () => `0x${rng.hex(32)}`],
    [1, () => `0x${"0".repeat(64)}`],
    [1, () => `0x${rng.hex(32)}${rng.pick("0123456789abcdef".split(""))}`], // 65 digits
    [1, () => `0x${rng.hex(32).slice(1)}`], // 63 digits
    [1, () => `0x${rng.hex(31)}`],
    [1, () => `0x${rng.hex(33)}`],
    [1, () => `0x${rng.hex(32).toUpperCase()}`],
    [1, () => rng.hex(32)],
    [1, () => junkValue(rng)],
  ])();
}

function quantity(rng: Rng): Json {
  return rng.weighted<() => Json>([
    [4, () => `0x${rng.int(64).toString(16)}`],
    [2, () => `0x${rng.hex(rng.range(1, 8)).replace(/^0+(?=.)/, "")}`],
    [1, () => "0x0"],
    [1, () => "0x01"],
    [1, () => "0x"],
    [1, () => "0x00"],
    [1, () => `0x${"f".repeat(rng.range(15, 70))}`],
    [1, () => "0x7fffffffffffffff"],
    [1, () => "0x8000000000000000"],
    [1, () => "-0x1"],
    [1, () => "0x-1"],
    [1, () => " 0x1"],
    [1, () => "0X1"],
    [1, () => "0xg"],
    [1, () => rng.pick([0, 1, 255, -1, 1e21])],
    [1, () => new Lit(rng.pick(["1e400", "18446744073709551617", "-0", "1.0"]))],
    [1, () => junkValue(rng)],
  ])();
}

function selector(rng: Rng): Json {
  return rng.weighted<() => Json>([
    [6, () => rng.pick(TAGS)],
    [3, () => `0x${rng.int(40).toString(16)}`],
    [2, () => randomCase(rng, rng.pick(TAGS))],
    [1, () => rng.pick(TAGS).toUpperCase()],
    [1, () => `${rng.pick(TAGS)} `],
    [1, () => "0x01"],
    [1, () => "0x"],
    [1, () => `0x${"f".repeat(rng.range(16, 70))}`],
    [1, () => "0x7fffffffffffffff"],
    [1, () => "0x8000000000000000"],
    [1, () => `0x${rng.hex(32)}`],
    [1, () => hash(rng)],
    [1, () => ({ blockNumber: quantity(rng) })],
    [1, () => ({ blockNumber: rng.pick(TAGS) })],
    [1, () => ({ blockHash: hash(rng) })],
    [
      1,
      () => ({
        blockHash: hash(rng),
        requireCanonical: rng.pick<Json>([true, false, "yes", 1, null]),
      }),
    ],
    [1, () => ({ blockHash: hash(rng), blockNumber: quantity(rng) })], // both
    [1, () => ({})], // neither
    [1, () => ({ requireCanonical: true })],
    [1, () => ({ blockHash: { blockHash: `0x${rng.hex(32)}` } })],
    [
      1,
      () =>
        new Dup([
          ["blockNumber", "0x0"],
          ["blockNumber", "0x1"],
        ]),
    ],
    [1, () => rng.pick<Json>([0, 1, -1, 1e20, null, true, []])],
    [1, () => new Lit("1e400")],
    [1, () => junkValue(rng)],
  ])();
}

function slot(rng: Rng): Json {
  return rng.weighted<() => Json>([
    [4, () => `0x${rng.int(8).toString(16)}`],
    [3, () => `0x${rng.hex(32)}`],
    [1, () => "0x"],
    [1, () => ""],
    [1, () => "0x0000000000000000000000000000000000000000000000000000000000000000000"],
    [1, () => `0x${rng.hex(33)}`],
    [1, () => `0X${rng.hex(3)}`],
    [1, () => `0x${rng.hex(3).slice(1)}`],
    [1, () => "0xzz"],
    [1, () => rng.hex(4)],
    [1, () => quantity(rng)],
  ])();
}

function hexData(rng: Rng): Json {
  return rng.weighted<() => Json>([
    [4, () => `0x${rng.hex(rng.range(0, 200))}`],
    [1, () => `0x${rng.hex(rng.range(1000, 70_000))}`],
    [1, () => "0x"],
    [1, () => `0x${rng.hex(10).slice(1)}`],
    [1, () => `0x${rng.hex(4)}zz`],
    [1, () => rng.hex(8)],
    [1, () => junkValue(rng)],
  ])();
}

/** Raw transactions: random bytes, typed-envelope prefixes, RLP-looking junk. */
function rawTx(rng: Rng): Json {
  return rng.weighted<() => Json>([
    [4, () => `0x${rng.hex(rng.range(0, 300))}`],
    [
      2,
      () =>
        `0x${rng.pick(["01", "02", "03", "04", "7e", "05", "ff"])}${rng.hex(rng.range(0, 200))}`,
    ],
    [2, () => `0x${rng.pick(["f8", "f9", "c0", "e1"])}${rng.hex(rng.range(1, 200))}`],
    [1, () => `0x02f8${rng.pick(["ff", "00", "70"])}${rng.hex(rng.range(10, 120))}`],
    [1, () => `0x${rng.hex(rng.range(100_000, 200_000))}`],
    [1, () => hexData(rng)],
  ])();
}

function callObject(rng: Rng, env: CaseEnv): Json {
  if (rng.chance(0.05)) return junkValue(rng);
  const o: Record<string, Json> = {};
  const put = (k: string, p: number, v: () => Json) => {
    if (rng.chance(p)) o[k] = v();
  };
  put("from", 0.5, () => address(rng, env));
  put("to", 0.85, () => (rng.chance(0.05) ? null : address(rng, env)));
  put("gas", 0.3, () => quantity(rng));
  put("gasPrice", 0.1, () => quantity(rng));
  put("maxFeePerGas", 0.15, () => quantity(rng));
  put("maxPriorityFeePerGas", 0.1, () => quantity(rng));
  put("value", 0.3, () => (rng.chance(0.2) ? `0x${"f".repeat(64)}` : quantity(rng)));
  put(rng.chance(0.5) ? "data" : "input", 0.7, () => hexData(rng));
  put("input", 0.05, () => hexData(rng)); // data and input both set
  put("nonce", 0.1, () => quantity(rng));
  put("chainId", 0.05, () => quantity(rng));
  put("accessList", 0.05, () =>
    rng.chance(0.5) ? [{ address: address(rng, env), storageKeys: [slot(rng)] }] : junkValue(rng),
  );
  put("blobVersionedHashes", 0.03, () => [hash(rng)]);
  put("authorizationList", 0.03, () => [
    {
      chainId: quantity(rng),
      address: address(rng, env),
      nonce: quantity(rng),
      yParity: "0x0",
      r: "0x1",
      s: "0x1",
    },
  ]);
  put("DATA", 0.03, () => hexData(rng)); // Go's case-insensitive keys
  return o;
}

function overrides(rng: Rng, env: CaseEnv): Json {
  if (rng.chance(0.3)) return junkValue(rng);
  const acct: Record<string, Json> = {};
  if (rng.chance(0.5)) acct.balance = quantity(rng);
  if (rng.chance(0.3)) acct.nonce = quantity(rng);
  if (rng.chance(0.4)) acct.code = hexData(rng);
  if (rng.chance(0.3)) acct.state = { [`0x${rng.hex(32)}`]: `0x${rng.hex(32)}` };
  if (rng.chance(0.2)) acct.stateDiff = { [String(slot(rng))]: hash(rng) };
  const key = address(rng, env);
  return { [typeof key === "string" ? key : "0x00"]: acct };
}

function blockOverrides(rng: Rng): Json {
  if (rng.chance(0.3)) return junkValue(rng);
  const o: Record<string, Json> = {};
  for (const k of ["number", "time", "gasLimit", "baseFeePerGas", "feeRecipient", "prevRandao"]) {
    if (rng.chance(0.3)) o[k] = k === "feeRecipient" ? `0x${rng.hex(20)}` : quantity(rng);
  }
  return o;
}

const UNKNOWN_METHODS = [
  "eth_getLogs",
  "eth_newFilter",
  "eth_getFilterChanges",
  "eth_getProof",
  "eth_sign",
  "debug_traceTransaction",
  "admin_peers",
  "rpc_modules",
  "eth_subscribe",
  "eth_unsubscribe",
  "ETH_CHAINID",
  "eth_chainId ",
  " eth_chainId",
  "eth_chainid",
  "eth_getBalance\u0000",
  "",
  "_",
  "eth_",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "🦊_fox",
];

/** [method, params] of a call to one of the node's methods (or an unknown one). */
function call(rng: Rng, env: CaseEnv): [string, Json[]] {
  const sel = () => selector(rng);
  const addr = () => address(rng, env);
  const pair = rng.weighted<() => [string, Json[]]>([
    [8, () => ["eth_getStorageAt", [addr(), slot(rng), sel()]]],
    [6, () => ["eth_getBlockReceipts", [sel()]]],
    [5, () => ["eth_getBalance", [addr(), sel()]]],
    [3, () => ["eth_getCode", [addr(), sel()]]],
    [3, () => ["eth_getTransactionCount", [addr(), sel()]]],
    [5, () => ["eth_getBlockByNumber", [sel(), rng.pick<Json>([true, false, "true", 1, null])]]],
    [2, () => ["eth_getBlockByHash", [hash(rng), rng.pick<Json>([true, false, 0])]]],
    [2, () => ["eth_getTransactionReceipt", [hash(rng)]]],
    [2, () => ["eth_getTransactionByHash", [hash(rng)]]],
    [
      3,
      () => {
        const a = addr();
        const slots = Array.from({ length: rng.chance(0.05) ? 1100 : rng.int(6) }, () => slot(rng));
        const req: Json = rng.chance(0.8)
          ? { [typeof a === "string" ? a : "0x"]: slots }
          : junkValue(rng);
        return ["eth_getStorageValues", [req, sel()]];
      },
    ],
    [
      6,
      () => {
        const p: Json[] = [callObject(rng, env), sel()];
        if (rng.chance(0.2)) p.push(overrides(rng, env));
        if (rng.chance(0.1)) p.push(blockOverrides(rng));
        return ["eth_call", p];
      },
    ],
    [3, () => ["eth_estimateGas", [callObject(rng, env), sel()]]],
    [4, () => ["eth_sendRawTransaction", [rawTx(rng)]]],
    [
      1,
      () => [
        "eth_sendRawTransactionSync",
        [rawTx(rng), rng.pick<Json>([1, 10, "0x10", -1, 1e12, "x", null])],
      ],
    ],
    [
      2,
      () => [
        "eth_feeHistory",
        [
          quantity(rng),
          sel(),
          rng.pick<Json>([
            [25, 50, 75],
            [],
            [90, 10],
            [-1, 101],
            Array.from({ length: 200 }, (_, i) => i / 2),
            "x",
            null,
          ]),
        ],
      ],
    ],
    [
      4,
      () => [
        rng.pick([
          "eth_chainId",
          "eth_blockNumber",
          "eth_gasPrice",
          "eth_maxPriorityFeePerGas",
          "eth_syncing",
          "net_version",
          "web3_clientVersion",
        ]),
        [],
      ],
    ],
    [4, () => [rng.pick(UNKNOWN_METHODS), [sel()]]],
  ])();
  const [method, params] = pair;
  // Arity games: a missing, an extra or a null argument.
  const r = rng.int(20);
  if (r === 0 && params.length > 0) params.pop();
  else if (r === 1) params.push(junkValue(rng));
  else if (r === 2 && params.length > 0) params[rng.int(params.length)] = null;
  return [method, params];
}

function plainId(rng: Rng): number | string | null {
  return rng.weighted<() => number | string | null>([
    [6, () => rng.int(1_000_000)],
    [2, () => `id-${rng.hex(4)}`],
    [1, () => null],
    [1, () => ""],
  ])();
}

/** A well-formed call envelope (params sometimes omitted or null). */
function envelope(rng: Rng, env: CaseEnv, id: Json | undefined): Json {
  const [method, params] = call(rng, env);
  const o: Record<string, Json> = { jsonrpc: "2.0" };
  if (id !== undefined) o.id = id;
  o.method = method;
  const p = rng.int(20);
  if (p === 0) return o;
  o.params = p === 1 ? null : params;
  return o;
}

/** An envelope with one field of the wrong type (or missing), or not an object at all. */
function wrongEnvelope(rng: Rng, env: CaseEnv): [string, Json] {
  const [method, params] = call(rng, env);
  const fields: [string, Json][] = [
    ["jsonrpc", "2.0"],
    ["id", rng.int(1000)],
    ["method", method],
    ["params", params],
  ];
  const which = rng.pick(["jsonrpc", "id", "method", "params", "missing", "whole", "extra"]);
  const set = (k: string, v: Json) => {
    const f = fields.find((x) => x[0] === k);
    if (f !== undefined) f[1] = v;
  };
  switch (which) {
    case "jsonrpc":
      set(
        "jsonrpc",
        rng.pick<Json>(["1.0", "2", "2.00", " 2.0", "", 2, 2.0, null, true, {}, ["2.0"]]),
      );
      break;
    case "id":
      set(
        "id",
        rng.pick<Json>([
          {},
          { a: 1 },
          [],
          [1],
          true,
          false,
          1.5,
          -0,
          new Lit("1e400"),
          new Lit("123456789012345678901234567890"),
          "x".repeat(10_000),
        ]),
      );
      break;
    case "method":
      set(
        "method",
        rng.pick<Json>([
          1,
          0,
          null,
          true,
          [],
          {},
          ["eth_chainId"],
          "",
          "x".repeat(rng.range(2040, 3000)),
          "é".repeat(1025),
        ]),
      );
      break;
    case "params":
      set(
        "params",
        rng.pick<Json>([{}, { 0: "latest" }, "latest", "", 1, 0, true, new Lit("1e400"), [[[]]]]),
      );
      break;
    case "missing":
      fields.splice(rng.int(fields.length), 1);
      break;
    case "whole":
      return [which, rng.pick<Json>([1, "x", null, true, [], "{}", [1, 2], [null], [[]]])];
    default:
      fields.push([
        rng.pick(["result", "error", "Method", "ID", "JSONRPC", "__proto__"]),
        junkValue(rng),
      ]);
  }
  if (rng.chance(0.3)) fields.reverse();
  return [which, new Dup(fields)];
}

// ---------------------------------------------------------------------------------------------
// Bodies with broken bytes.

const INVALID_UTF8 = [
  [0xc0, 0x80],
  [0xed, 0xa0, 0x80],
  [0xf5, 0x80, 0x80, 0x80],
  [0xff],
  [0xfe],
  [0x80],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
  [0xc3],
];

function malformed(rng: Rng, env: CaseEnv): [string, Buffer] {
  const valid = () => toJson(envelope(rng, env, rng.int(1000)));
  const variant = rng.pick([
    "truncated",
    "garbage",
    "trailing-junk",
    "invalid-utf8",
    "huge-number",
    "deep-array",
    "deep-object",
    "duplicate-keys",
    "empty",
    "bom",
    "nul",
    "bad-literal",
    "bad-escape",
  ]);
  switch (variant) {
    case "truncated": {
      const s = valid();
      return [variant, Buffer.from(s.slice(0, rng.int(s.length)))];
    }
    case "garbage":
      return [variant, rng.bytes(rng.range(1, 3000))];
    case "trailing-junk": {
      const tail = rng.pick([
        "}",
        "]",
        "garbage",
        " {",
        "\u0000",
        '{"jsonrpc":"2.0"}',
        ",",
        rng.bytes(20).toString("latin1"),
      ]);
      return [variant, Buffer.from(valid() + tail, "utf8")];
    }
    case "invalid-utf8": {
      const s = Buffer.from(valid());
      const bad = Buffer.from(rng.pick(INVALID_UTF8));
      // Inside a string (the method name or a value) or between tokens.
      const quote = s.indexOf('"', rng.int(s.length));
      const at = rng.chance(0.7) && quote > 0 ? quote : rng.int(s.length + 1);
      return [variant, Buffer.concat([s.subarray(0, at), bad, s.subarray(at)])];
    }
    case "huge-number": {
      const n = rng.pick([
        "9".repeat(rng.range(20, 5000)),
        `1e${rng.range(300, 100_000)}`,
        `-${"1".repeat(400)}.${"5".repeat(400)}`,
        "0.".padEnd(3000, "0"),
      ]);
      const where = rng.int(3);
      const body =
        where === 0
          ? `{"jsonrpc":"2.0","id":${n},"method":"eth_chainId"}`
          : where === 1
            ? `{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":[${n},false]}`
            : n;
      return [variant, Buffer.from(body)];
    }
    case "deep-array":
    case "deep-object": {
      const depth = rng.pick([9_999, 10_000, 10_001, rng.range(10_002, 200_000)]);
      const [open, close] = variant === "deep-array" ? ["[", "]"] : ['{"a":', "}"];
      const inner = variant === "deep-array" ? "1" : "1";
      const closed = rng.chance(0.8);
      const core = open.repeat(depth) + inner + (closed ? close.repeat(depth) : "");
      const wrap = rng.int(3);
      const body =
        wrap === 0
          ? core
          : wrap === 1
            ? `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[${core}]}`
            : `[${core}]`;
      return [`${variant}-${depth}`, Buffer.from(body)];
    }
    case "duplicate-keys": {
      const [method, params] = call(rng, env);
      const d = new Dup([
        ["jsonrpc", "2.0"],
        ["id", 1],
        ["method", method],
        ["params", params],
        [rng.pick(["id", "method", "params", "jsonrpc"]), junkValue(rng)],
      ]);
      return [variant, Buffer.from(toJson(d))];
    }
    case "empty":
      return [variant, Buffer.from(rng.pick(["", " ", "\n\r\t ", "\u00a0"]))];
    case "bom":
      return [variant, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(valid())])];
    case "nul": {
      const s = valid();
      const at = rng.int(s.length);
      return [variant, Buffer.from(`${s.slice(0, at)}\u0000${s.slice(at)}`)];
    }
    case "bad-literal":
      return [
        variant,
        Buffer.from(
          rng.pick([
            '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[NaN]}',
            '{"jsonrpc":"2.0","id":Infinity,"method":"eth_chainId"}',
            "{'jsonrpc':'2.0','id':1,'method':'eth_chainId'}",
            '{"jsonrpc":"2.0","id":1,"method":"eth_chainId",}',
            '{"jsonrpc":"2.0","id":01,"method":"eth_chainId"}',
            '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[tru]}',
            '{jsonrpc:"2.0",id:1,method:"eth_chainId"}',
            "[,]",
            "[1,]",
          ]),
        ),
      ];
    default:
      return [
        variant,
        Buffer.from(
          rng.pick([
            '{"jsonrpc":"2.0","id":1,"method":"eth_\\ud800chainId"}',
            '{"jsonrpc":"2.0","id":1,"method":"eth_chainId\\u0000"}',
            '{"jsonrpc":"2.0","id":"\\x41","method":"eth_chainId"}',
            '{"jsonrpc":"2\\u002e0","id":1,"method":"eth_chainId"}',
            '{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x\\u0030","latest"]}',
            '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":["\\uZZZZ"]}',
          ]),
        ),
      ];
  }
}

// ---------------------------------------------------------------------------------------------
// Expectations.

const JSON_HEADERS = { "content-type": "application/json" };

/** Statuses of a JSON POST on a route: public answers may also be rate-limited or refused. */
function postExpect(route: Route, body: Buffer, chunked: boolean): number[] {
  if (!chunked && body.length > BODY_LIMIT) return route.public ? [413, 429] : [413];
  const out = [200];
  if (route.public) {
    out.push(429);
    if (body.includes("eth_getBlockReceipts")) out.push(403);
  }
  return out;
}

function pickRoute(rng: Rng, env: CaseEnv): Route {
  if (env.dedicatedPath !== undefined && rng.chance(0.5))
    return { path: env.dedicatedPath, public: false };
  return { path: "/", public: true };
}

function jsonPost(
  base: Base,
  route: Route,
  body: Buffer,
  extra: Partial<Pick<HttpCase, "expectId" | "chunked" | "mayDrop" | "headers">> = {},
): HttpCase {
  const chunked = extra.chunked ?? false;
  const c: HttpCase = {
    ...base,
    transport: "http",
    method: "POST",
    path: route.path,
    headers: extra.headers ?? JSON_HEADERS,
    body,
    chunked,
    expect: postExpect(route, body, chunked),
    jsonrpc: true,
    mayDrop: extra.mayDrop ?? false,
  };
  return extra.expectId === undefined ? c : { ...c, expectId: extra.expectId };
}

function httpRequestBytes(
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
): Buffer {
  const lines = [`${method} ${path} HTTP/1.1`, "Host: 127.0.0.1"];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  return Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1"), body]);
}

function postBytes(route: Route, body: Buffer): Buffer {
  return httpRequestBytes(
    "POST",
    route.path,
    { "Content-Type": "application/json", "Content-Length": String(body.length) },
    body,
  );
}

function randomKey(rng: Rng): string {
  return rng.weighted<() => string>([
    [6, () => rng.hex(rng.pick([8, 16, 32]))],
    [2, () => Buffer.from(rng.bytes(rng.range(4, 40))).toString("base64url")],
    [1, () => "0"],
  ])();
}

// ---------------------------------------------------------------------------------------------
// The generator.

const WEIGHTS: readonly (readonly [number, CaseKind])[] = [
  [34, "valid-call"],
  [12, "wrong-types"],
  [14, "malformed-json"],
  [8, "batch"],
  [1.5, "oversized"],
  [4, "content-type"],
  [4, "http-method"],
  [4, "rpc-key"],
  [2, "http-misc"],
  [3, "raw-http"],
  [1.2, "slow-body"],
  [0.8, "stall"],
  [3, "dropped"],
  [4, "ws-rpc"],
  [1.5, "ws-raw"],
  [1.5, "ws-stream"],
];

/** Case `index` of `seed`: deterministic, independent of every other case. */
export function generateCase(seed: number, index: number, env: CaseEnv): FuzzCase {
  const rng = new Rng(seed, index);
  const kind = rng.weighted(WEIGHTS);
  switch (kind) {
    case "valid-call":
      return validCall(rng, env, index);
    case "wrong-types": {
      const [variant, v] = wrongEnvelope(rng, env);
      return jsonPost({ index, kind, variant }, pickRoute(rng, env), Buffer.from(toJson(v)));
    }
    case "malformed-json": {
      const [variant, body] = malformed(rng, env);
      return jsonPost({ index, kind, variant }, pickRoute(rng, env), body);
    }
    case "batch":
      return batch(rng, env, index);
    case "oversized":
      return oversized(rng, env, index);
    case "content-type":
      return contentType(rng, env, index);
    case "http-method":
      return httpMethod(rng, env, index);
    case "rpc-key":
      return rpcKey(rng, env, index);
    case "http-misc":
      return httpMisc(rng, env, index);
    case "raw-http":
      return rawHttp(rng, env, index);
    case "slow-body":
      return slowBody(rng, env, index);
    case "stall":
      return stall(rng, env, index);
    case "dropped":
      return dropped(rng, env, index);
    case "ws-rpc":
      return wsRpc(rng, env, index);
    case "ws-raw":
      return wsRaw(rng, env, index);
    default:
      return wsStream(rng, index);
  }
}

function validCall(rng: Rng, env: CaseEnv, index: number): HttpCase {
  const notification = rng.chance(0.03);
  const id = notification ? undefined : plainId(rng);
  const v = envelope(rng, env, id);
  const method = (v as { method?: unknown }).method;
  const variant = typeof method === "string" && method.length < 40 ? method : "other";
  return jsonPost(
    { index, kind: "valid-call", variant },
    pickRoute(rng, env),
    Buffer.from(toJson(v)),
    {
      ...(id === undefined ? {} : { expectId: { value: id } }),
    },
  );
}

function batchItem(rng: Rng, env: CaseEnv): Json {
  return rng.weighted<() => Json>([
    [10, () => envelope(rng, env, rng.int(100_000))],
    [2, () => envelope(rng, env, undefined)], // notification
    [2, () => wrongEnvelope(rng, env)[1]],
    [1, () => rng.pick<Json>([1, null, "x", [], {}, true])],
  ])();
}

function batch(rng: Rng, env: CaseEnv, index: number): HttpCase {
  const size = rng.weighted<() => number>([
    [10, () => rng.range(1, 30)],
    [2, () => rng.range(31, 300)],
    [1, () => 0],
    [1, () => rng.pick([999, 1000, 1001])],
    [1, () => rng.range(1002, 5000)],
  ])();
  // Big batches use cheap calls so that one case does not run for seconds.
  const cheap = size > 300;
  const items: Json[] = [];
  for (let i = 0; i < size; i++) {
    items.push(
      cheap && rng.chance(0.9)
        ? {
            jsonrpc: "2.0",
            id: i,
            method: rng.pick(["eth_chainId", "eth_blockNumber", "eth_getBalance"]),
            params: ["0x0000000000000000000000000000000000000000", "latest"].slice(0, rng.int(3)),
          }
        : batchItem(rng, env),
    );
  }
  const allNotes = rng.chance(0.03);
  const body = allNotes
    ? toJson(Array.from({ length: rng.range(1, 5) }, () => envelope(rng, env, undefined)))
    : toJson(items);
  const variant = allNotes
    ? "notifications"
    : size === 0
      ? "empty"
      : size > 1000
        ? ">1000"
        : size >= 999
          ? "999-1000"
          : size > 30
            ? "31-1000"
            : "1-30";
  return jsonPost({ index, kind: "batch", variant }, pickRoute(rng, env), Buffer.from(body));
}

/** A > 5 MiB body, shared by every case that needs one (generating it per case costs). */
let bigBody: Buffer | undefined;
function oversizedBody(): Buffer {
  if (bigBody === undefined) {
    const pad = " ".repeat(BODY_LIMIT + 1024 - 64);
    bigBody = Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]${pad}}`);
  }
  return bigBody;
}

function oversized(rng: Rng, env: CaseEnv, index: number): FuzzCase {
  const route = pickRoute(rng, env);
  const variant = rng.weighted<string>([
    [6, "declared"],
    [1, "real-body"],
    [1, "chunked"],
    [1, "exact-limit"],
    [1, "bad-length"],
  ]);
  const base = { index, kind: "oversized" as const, variant };
  const pub = (s: number[]) => (route.public ? [...s, 429] : s);
  switch (variant) {
    case "declared": {
      // Claims a huge body and sends a little: the answer must not wait for the rest.
      const len = rng.pick([
        BODY_LIMIT + 1,
        BODY_LIMIT * 2,
        2 ** 32,
        2 ** 40,
        Number.MAX_SAFE_INTEGER,
      ]);
      const head = httpRequestBytes(
        "POST",
        route.path,
        { "Content-Type": "application/json", "Content-Length": String(len) },
        Buffer.from('{"jsonrpc":"2.0"'),
      );
      return {
        ...base,
        transport: "raw",
        steps: [{ data: head, delayMs: 0 }],
        after: "read",
        holdMs: 0,
        responses: 1,
        expect: pub([413, 400]),
        jsonrpc: false,
      };
    }
    case "real-body":
      return jsonPost(base, route, oversizedBody(), { mayDrop: true });
    case "chunked":
      // Without a length the server reads up to the limit and answers a parse error.
      return jsonPost(base, route, oversizedBody(), { chunked: true, mayDrop: true });
    case "exact-limit": {
      const head = '{"jsonrpc":"2.0","id":7,"method":"eth_blockNumber"}';
      return jsonPost(base, route, Buffer.from(head + " ".repeat(BODY_LIMIT - head.length)), {
        expectId: { value: 7 },
      });
    }
    default: {
      const len = rng.pick(["abc", "-1", "1.5", "0x10", "", "1 2", "99999999999999999999999"]);
      const head = httpRequestBytes(
        "POST",
        route.path,
        { "Content-Type": "application/json", "Content-Length": len },
        Buffer.from("{}"),
      );
      return {
        ...base,
        transport: "raw",
        steps: [{ data: head, delayMs: 0 }],
        after: "read",
        holdMs: 0,
        responses: 0,
        expect: pub([400, 413]),
        jsonrpc: false,
      };
    }
  }
}

const BAD_TYPES = [
  "text/plain",
  "text/html",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/jsonx",
  "application/xml",
  "json",
  "application/json/extra",
  "*/*",
  "application/json; charset",
  "application/json; a=1; a=2",
  "application/json;;charset=utf-8",
  "",
];
const GOOD_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json-rpc",
  "application/jsonrequest",
  "APPLICATION/JSON",
  "application/json;",
  'application/json; charset="utf-8"',
];

function contentType(rng: Rng, env: CaseEnv, index: number): HttpCase {
  const route = pickRoute(rng, env);
  const body = Buffer.from(toJson(envelope(rng, env, 1)));
  const good = rng.chance(0.3);
  const missing = !good && rng.chance(0.15);
  const type = good ? rng.pick(GOOD_TYPES) : rng.pick(BAD_TYPES);
  const base = {
    index,
    kind: "content-type" as const,
    variant: good ? "accepted" : missing ? "missing" : "rejected",
  };
  const c = jsonPost(base, route, body, { headers: missing ? {} : { "content-type": type } });
  return good ? c : { ...c, expect: route.public ? [415, 429] : [415] };
}

function httpMethod(rng: Rng, env: CaseEnv, index: number): HttpCase {
  const route = pickRoute(rng, env);
  const method = rng.weighted<string>([
    [4, "PUT"],
    [4, "DELETE"],
    [1, "PATCH"],
    [1, "OPTIONS"],
    [1, "HEAD"],
    [1, "GET"],
  ]);
  const withBody = rng.chance(0.7);
  const body = withBody ? Buffer.from(toJson(envelope(rng, env, 1))) : Buffer.alloc(0);
  let expect: number[];
  if (method === "PUT" || method === "DELETE") expect = [405];
  else if (method === "GET" && !withBody) expect = [200];
  else if (method === "HEAD") expect = [200, 405, 415];
  else expect = [200, 204, 405, 415];
  if (route.public) expect.push(429);
  if (route.public && withBody && method !== "PUT" && method !== "DELETE") expect.push(403);
  return {
    index,
    kind: "http-method",
    variant: method,
    transport: "http",
    method,
    path: route.path,
    headers: JSON_HEADERS,
    body,
    chunked: false,
    expect,
    jsonrpc: method !== "HEAD",
    mayDrop: false,
  };
}

function rpcKey(rng: Rng, env: CaseEnv, index: number): FuzzCase {
  const body = Buffer.from(toJson(envelope(rng, env, 1)));
  const odd = rng.chance(0.25);
  const path = odd
    ? rng.pick([
        "/rpc/",
        "/rpc",
        `/rpc/${rng.hex(16)}/extra`,
        `/rpc/${rng.hex(16)}?key=1`,
        "/rpc/%00",
        "/rpc/%ff%fe",
        "/rpc/..%2f",
        `/rpc/${"k".repeat(rng.range(1000, 6000))}`,
        `/RPC/${rng.hex(16)}`,
        `//rpc/${rng.hex(16)}`,
        ...(env.dedicatedPath === undefined
          ? []
          : [
              `${env.dedicatedPath}x`,
              env.dedicatedPath.slice(0, -1),
              env.dedicatedPath.toUpperCase(),
            ]),
      ])
    : `/rpc/${randomKey(rng)}`;
  const expect = odd ? [env.badKeyStatus, 400, 401, 404] : [env.badKeyStatus];
  // The dedicated key itself uppercased may be the key (hex digits only): then 200 is right.
  if (env.dedicatedPath !== undefined && path.toLowerCase() === env.dedicatedPath.toLowerCase())
    expect.push(200);
  const variant = odd ? "odd-path" : "random-key";
  if (rng.chance(0.1)) {
    // The WebSocket upgrade on an unknown key is refused the same way.
    const key = rng.bytes(16).toString("base64");
    const head = httpRequestBytes(
      "GET",
      path,
      {
        Upgrade: "websocket",
        Connection: "Upgrade",
        "Sec-WebSocket-Key": key,
        "Sec-WebSocket-Version": "13",
      },
      Buffer.alloc(0),
    );
    return {
      index,
      kind: "rpc-key",
      variant: `ws-${variant}`,
      transport: "raw",
      steps: [{ data: head, delayMs: 0 }],
      after: "read",
      holdMs: 0,
      responses: 1,
      expect: [...expect, 400],
      jsonrpc: false,
    };
  }
  return {
    index,
    kind: "rpc-key",
    variant,
    transport: "http",
    method: "POST",
    path,
    headers: JSON_HEADERS,
    body,
    chunked: false,
    expect,
    jsonrpc: true,
    mayDrop: false,
  };
}

function httpMisc(rng: Rng, env: CaseEnv, index: number): HttpCase {
  const [method, path, expect, jsonrpc] = rng.pick<readonly [string, string, number[], boolean]>([
    ["GET", "/", [200, 429], true],
    ["GET", "/healthz", [200, 404], false],
    ["GET", "/metrics", [200, 404], false],
    ["GET", `/${rng.hex(4)}`, [404], false],
    ["GET", "/?x=1", [200, 415, 429], true],
    ["POST", "/healthz", [404, 405], false],
    [
      "POST",
      `/${junkString(rng)
        .slice(0, 50)
        .replace(/[^\x21-\x7e]/g, "_")}`,
      [404, 200, 415, 429, 400],
      true,
    ],
    ["GET", "/flashblocks", [404, 426, 400], false],
    ["GET", env.dedicatedPath ?? "/rpc/x", [200, 401, 404, 405], true],
  ]);
  const variant = `${method} ${path.length > 20 ? `${path.slice(0, 20)}…` : path}`;
  return {
    index,
    kind: "http-misc",
    variant,
    transport: "http",
    method,
    path,
    headers: {},
    body: Buffer.alloc(0),
    chunked: false,
    expect,
    jsonrpc,
    mayDrop: false,
  };
}

function rawHttp(rng: Rng, env: CaseEnv, index: number): RawCase {
  const route = pickRoute(rng, env);
  const body = Buffer.from(toJson(envelope(rng, env, 1)));
  const pub = (s: number[]) => (route.public ? [...s, 429] : s);
  const variant = rng.pick([
    "random-bytes",
    "bad-request-line",
    "huge-header",
    "conflicting-length",
    "length-and-chunked",
    "bad-chunk",
    "bad-header-chars",
    "http2-preface",
    "http10",
    "pipelined",
    "absolute-form",
    "expect-continue",
    "no-host",
    "bad-transfer-encoding",
  ]);
  const base = {
    index,
    kind: "raw-http" as const,
    variant,
    transport: "raw" as const,
    after: "read" as const,
    holdMs: 0,
    jsonrpc: true,
  };
  const one = (data: Buffer, expect: number[], responses = 1): RawCase => ({
    ...base,
    steps: [{ data, delayMs: 0 }],
    responses,
    expect,
  });
  const head = (extra: string) =>
    Buffer.from(
      `POST ${route.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${extra}\r\n`,
      "latin1",
    );
  switch (variant) {
    case "random-bytes":
      return one(rng.bytes(rng.range(1, 2000)), [400, 431, 505], 0);
    case "bad-request-line":
      return one(
        Buffer.from(
          rng.pick([
            "GARBAGE\r\n\r\n",
            "POST\r\n\r\n",
            "POST / HTTP/9.9\r\n\r\n",
            "POST / FOO/1.1\r\n\r\n",
            " / HTTP/1.1\r\n\r\n",
            "POST  /  HTTP/1.1\r\n\r\n",
            "\r\n\r\n\r\n",
          ]),
          "latin1",
        ),
        [400, 505],
        0,
      );
    case "huge-header":
      return one(
        head(
          `X-Big: ${"a".repeat(rng.range(17_000, 80_000))}\r\nContent-Length: ${body.length}\r\n`,
        ),
        [431, 400],
        0,
      );
    case "conflicting-length":
      return one(
        Buffer.concat([
          head(`Content-Length: ${body.length}\r\nContent-Length: ${body.length + 1}\r\n`),
          body,
        ]),
        [400],
        0,
      );
    case "length-and-chunked":
      return one(
        Buffer.concat([
          head(`Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n`),
          body,
        ]),
        pub([400, 200]),
        0,
      );
    case "bad-chunk":
      return one(
        Buffer.concat([
          head("Transfer-Encoding: chunked\r\n"),
          Buffer.from(
            rng.pick([
              "zz\r\nabc\r\n0\r\n\r\n",
              "5\r\nabcdefgh\r\n0\r\n\r\n",
              "-1\r\n\r\n",
              "ffffffffffffffffff\r\n",
            ]),
          ),
        ]),
        [400, 413],
        0,
      );
    case "bad-header-chars":
      return one(
        Buffer.concat([
          head(`X-Bad: a\u0000b\r\nX-Ünï: c\r\nContent-Length: ${body.length}\r\n`),
          body,
        ]),
        [400],
        0,
      );
    case "http2-preface":
      return one(Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), [400, 505], 0);
    case "http10":
      return one(
        Buffer.from(
          `POST ${route.path} HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.toString("latin1")}`,
          "latin1",
        ),
        postExpect(route, body, false),
      );
    case "pipelined": {
      const n = rng.range(2, 6);
      const reqs = Array.from({ length: n }, () =>
        postBytes(route, Buffer.from(toJson(envelope(rng, env, rng.int(1000))))),
      );
      const all = Buffer.concat(reqs);
      return one(all, [...postExpect(route, all, false)], n);
    }
    case "absolute-form":
      return one(
        Buffer.concat([
          Buffer.from(
            `POST http://127.0.0.1${route.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
          ),
          body,
        ]),
        postExpect(route, body, false),
      );
    case "expect-continue":
      return one(
        Buffer.concat([head(`Expect: 100-continue\r\nContent-Length: ${body.length}\r\n`), body]),
        postExpect(route, body, false),
      );
    case "no-host":
      return one(
        Buffer.concat([
          Buffer.from(
            `POST ${route.path} HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
          ),
          body,
        ]),
        pub([400, 200]),
        0,
      );
    default:
      return one(
        Buffer.concat([
          head(
            rng.pick([
              "Transfer-Encoding: chunked, identity\r\n",
              "Transfer-Encoding: gzip\r\n",
              "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
              "Transfer-Encoding: xchunked\r\n",
            ]),
          ),
          Buffer.from(`${body.length.toString(16)}\r\n`),
          body,
          Buffer.from("\r\n0\r\n\r\n"),
        ]),
        pub([400, 200, 501]),
        0,
      );
  }
}

/** Pieces of `data` cut at random points. */
function cut(rng: Rng, data: Buffer, pieces: number): Buffer[] {
  const points = new Set<number>();
  while (points.size < Math.min(pieces - 1, data.length - 1))
    points.add(rng.range(1, data.length - 1));
  const sorted = [...points].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const p of [...sorted, data.length]) {
    out.push(data.subarray(prev, p));
    prev = p;
  }
  return out;
}

function slowBody(rng: Rng, env: CaseEnv, index: number): RawCase {
  const route = pickRoute(rng, env);
  const body = Buffer.from(toJson(envelope(rng, env, 1)));
  const chunked = rng.chance(0.3);
  let data: Buffer;
  if (chunked) {
    const parts = cut(rng, body, rng.range(2, 6)).map((p) =>
      Buffer.concat([Buffer.from(`${p.length.toString(16)}\r\n`), p, Buffer.from("\r\n")]),
    );
    data = Buffer.concat([
      Buffer.from(
        `POST ${route.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      ),
      ...parts,
      Buffer.from("0\r\n\r\n"),
    ]);
  } else data = postBytes(route, body);
  const pieces = cut(rng, data, rng.range(3, 25));
  const budget = rng.range(300, 4000); // whole dribble, ms
  const steps = pieces.map((p, i) => ({
    data: p,
    delayMs: i === 0 ? 0 : Math.floor(budget / pieces.length),
  }));
  return {
    index,
    kind: "slow-body",
    variant: chunked ? "chunked" : "content-length",
    transport: "raw",
    steps,
    after: "read",
    holdMs: 0,
    responses: 1,
    expect: postExpect(route, body, false),
    jsonrpc: true,
  };
}

function stall(rng: Rng, env: CaseEnv, index: number): RawCase {
  const route = pickRoute(rng, env);
  const data = postBytes(route, Buffer.from(toJson(envelope(rng, env, 1))));
  const headEnd = data.indexOf("\r\n\r\n") + 4;
  const variant = rng.pick(["connect-only", "mid-headers", "mid-body", "half-close"]);
  const at =
    variant === "mid-headers" ? rng.range(1, headEnd - 1) : rng.range(headEnd, data.length - 1);
  const steps = variant === "connect-only" ? [] : [{ data: data.subarray(0, at), delayMs: 0 }];
  const holdMs = rng.range(500, 3000);
  // A half-closed socket may get a 400; the others get nothing until the server's timeout.
  return {
    index,
    kind: "stall",
    variant,
    transport: "raw",
    steps,
    after: variant === "half-close" ? "read" : "hang",
    holdMs,
    responses: 0,
    expect: [400, 408],
    jsonrpc: false,
  };
}

function dropped(rng: Rng, env: CaseEnv, index: number): RawCase {
  const route = pickRoute(rng, env);
  const heavy = rng.chance(0.2);
  const body = heavy
    ? Buffer.from(
        toJson(
          Array.from({ length: rng.range(100, 1000) }, (_, i) => ({
            jsonrpc: "2.0",
            id: i,
            method: "eth_getBlockByNumber",
            params: ["latest", true],
          })),
        ),
      )
    : Buffer.from(toJson(envelope(rng, env, 1)));
  const data = postBytes(route, body);
  const whole = rng.chance(0.4);
  const at = whole ? data.length : rng.range(1, data.length - 1);
  const variant = whole
    ? heavy
      ? "after-heavy-request"
      : "after-request"
    : at < data.indexOf("\r\n\r\n")
      ? "mid-headers"
      : "mid-body";
  // Cut before the answer could come, usually; an answer that beats the cut must still be right.
  const expect = whole ? postExpect(route, body, false) : [400];
  return {
    index,
    kind: "dropped",
    variant,
    transport: "raw",
    steps: [{ data: data.subarray(0, at), delayMs: 0 }],
    after: "close",
    holdMs: rng.int(30),
    responses: 0,
    expect,
    jsonrpc: whole,
  };
}

function wsRpc(rng: Rng, env: CaseEnv, index: number): WsCase {
  const path = env.dedicatedPath !== undefined && rng.chance(0.5) ? env.dedicatedPath : "/";
  const n = rng.range(1, 20);
  const frames: WsFrame[] = [];
  let utf8Broken = false;
  for (let i = 0; i < n; i++) {
    const f = rng.weighted<() => WsFrame>([
      [6, () => ({ data: Buffer.from(toJson(envelope(rng, env, rng.int(1000)))), binary: false })],
      [3, () => ({ data: malformed(rng, env)[1], binary: false })],
      [2, () => ({ data: Buffer.from(toJson(wrongEnvelope(rng, env)[1])), binary: false })],
      [
        1,
        () => ({
          data: Buffer.from(
            toJson(Array.from({ length: rng.range(0, 20) }, () => batchItem(rng, env))),
          ),
          binary: false,
        }),
      ],
      [
        2,
        () => ({
          data: Buffer.from(
            toJson({
              jsonrpc: "2.0",
              id: rng.int(1000),
              method: rng.pick(["eth_subscribe", "eth_unsubscribe"]),
              params: rng.pick<Json>([
                ["newHeads"],
                ["newFlashblocks"],
                ["logs", { address: address(rng, env), topics: [[hash(rng)], null] }],
                ["logs", junkValue(rng)],
                ["newPendingTransactions"],
                ["bogus"],
                [],
                [junkValue(rng)],
                [`0x${rng.hex(16)}`],
              ]),
            }),
          ),
          binary: false,
        }),
      ],
      [1, () => ({ data: Buffer.from(toJson(envelope(rng, env, 1))), binary: true })],
      [1, () => ({ data: rng.bytes(rng.range(0, 500)), binary: true })],
      [1, () => ({ data: Buffer.from(rng.pick(["", " ", "null", "[]", "{}"])), binary: false })],
      [
        0.5,
        () => {
          utf8Broken = true;
          return {
            data: Buffer.concat([
              Buffer.from('{"jsonrpc":"2.0","id":1,"method":"eth_'),
              Buffer.from(rng.pick(INVALID_UTF8)),
              Buffer.from('"}'),
            ]),
            binary: false,
          };
        },
      ],
      [
        0.3,
        () => ({
          data: Buffer.from(
            `[${'{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},'.repeat(rng.range(1000, 30_000))}1]`,
          ),
          binary: false,
        }),
      ],
    ])();
    // A text frame that is not UTF-8 makes the server close the socket (1007), as it should.
    if (!f.binary && !isUtf8(f.data)) utf8Broken = true;
    frames.push(f);
  }
  return {
    index,
    kind: "ws-rpc",
    variant: utf8Broken ? "invalid-utf8" : path === "/" ? "public" : "dedicated",
    transport: "ws",
    path,
    stream: false,
    frames,
    sentinel: true,
    listenMs: rng.range(50, 400),
  };
}

function wsFrame(
  opcode: number,
  payload: Buffer,
  opts: { mask?: boolean; fin?: boolean; rsv?: number; len?: bigint } = {},
): Buffer {
  const mask = opts.mask ?? true;
  const b0 = ((opts.fin ?? true) ? 0x80 : 0) | ((opts.rsv ?? 0) << 4) | (opcode & 0x0f);
  const len = opts.len ?? BigInt(payload.length);
  let head: Buffer;
  if (len < 126n) head = Buffer.from([b0, (mask ? 0x80 : 0) | Number(len)]);
  else if (len < 65_536n) {
    head = Buffer.alloc(4);
    head[0] = b0;
    head[1] = (mask ? 0x80 : 0) | 126;
    head.writeUInt16BE(Number(len), 2);
  } else {
    head = Buffer.alloc(10);
    head[0] = b0;
    head[1] = (mask ? 0x80 : 0) | 127;
    head.writeBigUInt64BE(len, 2);
  }
  if (!mask) return Buffer.concat([head, payload]);
  const key = Buffer.from([0x12, 0x34, 0x56, 0x78]);
  const body = Buffer.from(payload.map((b, i) => b ^ key[i % 4]!));
  return Buffer.concat([head, key, body]);
}

function wsRaw(rng: Rng, env: CaseEnv, index: number): RawCase {
  const path = rng.pick([
    "/",
    "/flashblocks",
    ...(env.dedicatedPath === undefined ? [] : [env.dedicatedPath]),
  ]);
  const key = rng.bytes(16).toString("base64");
  const handshakeVariant = rng.weighted<string>([
    [8, "ok"],
    [1, "no-key"],
    [1, "bad-version"],
    [1, "bad-key"],
    [1, "not-get"],
  ]);
  const headers: Record<string, string> = {
    Upgrade: "websocket",
    Connection: "Upgrade",
    "Sec-WebSocket-Version": "13",
    "Sec-WebSocket-Key": key,
  };
  if (handshakeVariant === "no-key") delete headers["Sec-WebSocket-Key"];
  if (handshakeVariant === "bad-version")
    headers["Sec-WebSocket-Version"] = rng.pick(["7", "0", "abc", "14"]);
  if (handshakeVariant === "bad-key")
    headers["Sec-WebSocket-Key"] = rng.pick(["x", "", "!!!!", rng.bytes(10).toString("base64")]);
  const method = handshakeVariant === "not-get" ? "POST" : "GET";
  const hs = httpRequestBytes(method, path, headers, Buffer.alloc(0));
  const garbageVariant = rng.pick([
    "random",
    "unmasked",
    "rsv-bits",
    "bad-opcode",
    "big-control",
    "huge-length",
    "bad-close",
    "orphan-continuation",
    "fragmented-control",
    "oversized-stream",
  ]);
  const text = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}');
  const garbage = (() => {
    switch (garbageVariant) {
      case "random":
        return rng.bytes(rng.range(1, 500));
      case "unmasked":
        return wsFrame(1, text, { mask: false });
      case "rsv-bits":
        return wsFrame(1, text, { rsv: rng.range(1, 7) });
      case "bad-opcode":
        return wsFrame(rng.pick([3, 4, 5, 6, 7, 0xb, 0xc, 0xf]), text);
      case "big-control":
        return wsFrame(9, rng.bytes(rng.range(126, 300)));
      case "huge-length":
        return Buffer.concat([
          wsFrame(1, Buffer.alloc(0), { len: rng.pick([2n ** 63n - 1n, 2n ** 40n, 40_000_000n]) }),
          rng.bytes(100),
        ]);
      case "bad-close":
        return wsFrame(
          8,
          Buffer.concat([Buffer.from([rng.int(256), rng.int(256)]), rng.bytes(rng.range(0, 20))]),
        );
      case "orphan-continuation":
        return wsFrame(0, text);
      case "fragmented-control":
        return wsFrame(9, Buffer.from("ping"), { fin: false });
      default:
        return wsFrame(rng.pick([1, 2]), rng.bytes(70_000));
    }
  })();
  const upgradeOk = handshakeVariant === "ok";
  // A refused handshake on "/" that is also a POST without a JSON type is a plain 415.
  const expect = upgradeOk ? [101] : [400, 404, 405, 415, 426];
  if (path === "/") expect.push(429);
  return {
    index,
    kind: "ws-raw",
    variant: upgradeOk ? garbageVariant : `handshake-${handshakeVariant}`,
    transport: "raw",
    steps: upgradeOk
      ? [
          { data: hs, delayMs: 0 },
          { data: garbage, delayMs: 20 },
        ]
      : [{ data: hs, delayMs: 0 }],
    after: "read",
    holdMs: 0,
    responses: 1,
    expect,
    jsonrpc: false,
  };
}

function wsStream(rng: Rng, index: number): WsCase {
  const frames: WsFrame[] = [];
  const variant = rng.pick(["listen", "text", "binary", "oversized"]);
  if (variant === "text") frames.push({ data: Buffer.from(toJson(junkValue(rng))), binary: false });
  if (variant === "binary") frames.push({ data: rng.bytes(rng.range(1, 1000)), binary: true });
  if (variant === "oversized") frames.push({ data: rng.bytes(70_000), binary: rng.chance(0.5) });
  return {
    index,
    kind: "ws-stream",
    variant,
    transport: "ws",
    path: "/flashblocks",
    stream: true,
    frames,
    sentinel: false,
    listenMs: rng.range(200, 1200),
  };
}
