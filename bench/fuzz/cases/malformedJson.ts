// `malformed-json`: bodies with broken bytes (truncated, invalid UTF-8, deep nesting, bad
// literals), built from valid envelopes so the parser gets deep before it fails.
import { call, envelope } from "./calls.ts";
import { Dup, toJson } from "./json.ts";
import type { Rng } from "./rng.ts";
import type { CaseEnv } from "./types.ts";
import { junkValue } from "./values.ts";

export const INVALID_UTF8 = [
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

export function malformed(rng: Rng, env: CaseEnv): [string, Buffer] {
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
