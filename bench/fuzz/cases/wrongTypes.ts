// `wrong-types`: envelopes with one field of the wrong type or missing, or no object at all.
import { call } from "./calls.ts";
import { Dup, type Json, Lit } from "./json.ts";
import type { Rng } from "./rng.ts";
import type { CaseEnv } from "./types.ts";
import { junkValue } from "./values.ts";

/** An envelope with one field of the wrong type (or missing), or not an object at all. */
export function wrongEnvelope(rng: Rng, env: CaseEnv): [string, Json] {
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
