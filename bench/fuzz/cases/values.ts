// Argument values for calls: well-formed ones (dev accounts, tags, precompiles) and near misses
// (wrong case, wrong length, wrong type) that the node must refuse without breaking.
import { Dup, type Json, Lit } from "./json.ts";
import type { Rng } from "./rng.ts";
import type { CaseEnv } from "./types.ts";

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

export function junkString(rng: Rng): string {
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
export function junkValue(rng: Rng, depth = 0): Json {
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

export function address(rng: Rng, env: CaseEnv): Json {
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

export function hash(rng: Rng): Json {
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

export function quantity(rng: Rng): Json {
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

export function selector(rng: Rng): Json {
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

export function slot(rng: Rng): Json {
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

export function hexData(rng: Rng): Json {
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
export function rawTx(rng: Rng): Json {
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
