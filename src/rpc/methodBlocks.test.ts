// The registry says where each method takes its blocks (the edge's policy reads calls through
// it): every parameter that reads a block selector declares it, so a new method cannot be left
// out of the policy.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { RpcBackend } from "../services/backend.ts";
import type { BlockSelector } from "../services/blockSelector.ts";
import {
  blockParamAt,
  callBlocks,
  defineMethod,
  type MethodRegistry,
  optional,
  required,
} from "./method.ts";
import { createMethods, METHOD_NAMES } from "./methods.ts";
import { parseBlockSelector } from "./params.ts";

// Definitions are built without reading the backend (METHOD_NAMES relies on it too).
const registry = createMethods({} as RpcBackend);
const blocksOf = callBlocks(registry);
const HASH = `0x${"ab".repeat(32)}`;

/** Whether a parsed value holds a block selector anywhere (a filter's fromBlock, say). */
function holdsSelector(value: unknown, depth = 0): boolean {
  if (typeof value !== "object" || value === null || depth > 3) return false;
  const kind = (value as { kind?: unknown }).kind;
  if (kind === "tag" || kind === "number") return true;
  if (value instanceof Uint8Array) return false;
  const children =
    value instanceof Map || value instanceof Set ? [...value.values()] : Object.values(value);
  return children.some((v) => holdsSelector(v, depth + 1));
}

/** Raw values a block parameter of any kind accepts, bare or inside a filter object. */
const PROBES: readonly unknown[] = [
  "pending",
  "0x1",
  { blockNumber: "pending" },
  { toBlock: "pending" },
  { fromBlock: "0x1" },
];

describe("the method registry declares every block parameter", () => {
  test("METHOD_NAMES are the registry's names", () => {
    assert.deepEqual([...METHOD_NAMES].sort(), Object.keys(registry).sort());
  });

  test("a parameter whose parser reads a block selector declares it", () => {
    const undeclared: string[] = [];
    for (const [name, def] of Object.entries(registry)) {
      def.params.forEach((spec, i) => {
        if (spec.blocks !== undefined) return;
        for (const raw of PROBES) {
          let parsed: unknown;
          try {
            parsed = spec.parse(raw);
          } catch {
            continue;
          }
          if (holdsSelector(parsed)) undeclared.push(`${name} param ${i} (${JSON.stringify(raw)})`);
        }
      });
    }
    assert.deepEqual(undeclared, [], "parses a block selector without declaring it");
  });

  test("a method taking a block by hash declares it", () => {
    const byHash = METHOD_NAMES.filter((n) => /Block\w*ByHash|ByBlockHash/.test(n));
    assert.ok(byHash.length >= 6, byHash.join(", "));
    for (const name of byHash) {
      assert.deepEqual(
        blocksOf({ method: name, params: [HASH, "0x0"] })?.map((b) => b.kind),
        ["hash"],
        name,
      );
    }
  });

  test("each method that takes a block selector is covered", () => {
    const calls: Array<[string, unknown[]]> = [
      ["eth_getBalance", ["0x0", "pending"]],
      ["eth_getCode", ["0x0", "pending"]],
      ["eth_getStorageAt", ["0x0", "0x0", "pending"]],
      ["eth_getStorageValues", [{}, "pending"]],
      ["eth_getTransactionCount", ["0x0", "pending"]],
      ["eth_call", [{}, "pending"]],
      ["eth_estimateGas", [{}, "pending"]],
      ["eth_createAccessList", [{}, "pending"]],
      ["eth_getProof", ["0x0", [], "pending"]],
      ["eth_simulateV1", [{}, "pending"]],
      ["eth_feeHistory", ["0x1", "pending"]],
      ["eth_getBlockByNumber", ["pending", false]],
      ["eth_getBlockReceipts", ["pending"]],
      ["eth_getBlockTransactionCountByNumber", ["pending"]],
      ["eth_getTransactionByBlockNumberAndIndex", ["pending", "0x0"]],
      ["eth_getUncleByBlockNumberAndIndex", ["pending", "0x0"]],
      ["eth_getUncleCountByBlockNumber", ["pending"]],
      ["debug_getRawHeader", ["pending"]],
      ["debug_getRawBlock", ["pending"]],
      ["debug_getRawReceipts", ["pending"]],
      ["debug_traceBlockByNumber", ["pending"]],
      ["debug_traceCall", [{}, "pending"]],
      ["eth_getLogs", [{ toBlock: "pending" }]],
      ["eth_newFilter", [{ fromBlock: "pending" }]],
    ];
    for (const [method, params] of calls) {
      const blocks = blocksOf({ method, params });
      assert.ok(
        blocks?.some((b) => b.kind === "tag" && b.tag === "pending"),
        `${method}: ${JSON.stringify(blocks)}`,
      );
    }
  });
});

describe("the method registry declares how each method reaches its data", () => {
  test("every method with a block parameter declares what it reads", () => {
    const undeclared = Object.entries(registry)
      .filter(([, def]) => blockParamAt(def) !== undefined && def.reads === undefined)
      .map(([name]) => name);
    assert.deepEqual(undeclared, [], "take a block but do not say what they read of it");
  });

  test("a method that reads a block's data takes a block parameter", () => {
    const atNoBlock = Object.entries(registry)
      .filter(
        ([, def]) =>
          (def.reads === "state" ||
            def.reads === "block" ||
            def.reads === "proof" ||
            def.reads === "logs") &&
          blockParamAt(def) === undefined,
      )
      .map(([name]) => name);
    assert.deepEqual(atNoBlock, []);
  });

  test("a method that reads a transaction takes its hash first", () => {
    const byHash = Object.entries(registry).filter(([, def]) => def.reads === "transaction");
    assert.ok(byHash.length >= 4, byHash.map(([n]) => n).join(", "));
    for (const [name, def] of byHash) {
      assert.ok(def.params[0]?.parse(HASH) instanceof Uint8Array, name);
      assert.throws(() => def.params[0]?.parse("latest"), name);
    }
  });
});

describe("the blocks a call names", () => {
  const tags = (method: string, params: unknown) =>
    blocksOf({ method, params })?.map((b: BlockSelector) => (b.kind === "tag" ? b.tag : b.kind));

  test("left out: the method's default (latest; eth_estimateGas runs on pending)", () => {
    assert.deepEqual(tags("eth_getBalance", ["0x0"]), ["latest"]);
    assert.deepEqual(tags("eth_getBalance", ["0x0", null]), ["latest"]);
    assert.deepEqual(tags("eth_call", [{}]), ["latest"]);
    assert.deepEqual(tags("eth_estimateGas", [{}]), ["pending"]);
    assert.deepEqual(tags("eth_estimateGas", [{}, "latest"]), ["latest"]);
  });

  test("eth_getLogs: fromBlock and toBlock each (latest when left out), or the block hash", () => {
    assert.deepEqual(tags("eth_getLogs", [{}]), ["latest", "latest"]);
    assert.deepEqual(tags("eth_getLogs", [null]), ["latest", "latest"]);
    assert.deepEqual(tags("eth_getLogs", [{ fromBlock: "0x1", toBlock: "pending" }]), [
      "number",
      "pending",
    ]);
    assert.deepEqual(
      tags("eth_getLogs", [{ ToBlock: "pending" }]),
      ["latest", "pending"],
      "Go's keys fold case",
    );
    assert.deepEqual(tags("eth_getLogs", [{ blockHash: HASH }]), ["hash"]);
  });

  test("eth_newFilter without a toBlock follows the pre-confirmed logs: pending", () => {
    assert.deepEqual(tags("eth_newFilter", [{}]), ["latest", "pending"]);
    assert.deepEqual(tags("eth_newFilter", [{ toBlock: "latest" }]), ["latest", "latest"]);
  });

  test("EIP-1898 objects, read as the handler reads them (keys fold case too)", () => {
    assert.deepEqual(tags("eth_getBalance", ["0x0", { blockNumber: "pending" }]), ["pending"]);
    assert.deepEqual(tags("eth_getBalance", ["0x0", { BlockNumber: "pending" }]), ["pending"]);
    assert.deepEqual(tags("eth_getBalance", ["0x0", { blockNumber: "0x5" }]), ["number"]);
    assert.deepEqual(tags("eth_getBalance", ["0x0", { blockHash: HASH }]), ["hash"]);
    assert.deepEqual(tags("eth_getBlockReceipts", [HASH]), ["hash"]);
  });

  test("a value the parser refuses names no block; a method without one names none", () => {
    assert.deepEqual(tags("eth_getBalance", ["0x0", "soon"]), []);
    assert.deepEqual(tags("eth_getBalance", { address: "0x0" }), [], "params not a list");
    assert.deepEqual(tags("eth_getBlockReceipts", []), [], "a required one missing");
    assert.equal(tags("eth_chainId", []), undefined);
    assert.equal(tags("eth_getTransactionByHash", [HASH]), undefined);
    assert.equal(tags("no_such_method", ["pending"]), undefined);
    assert.equal(tags("toString", ["pending"]), undefined);
  });

  test("a registry of its own: declared through the parser, with the absent value", () => {
    const own: MethodRegistry = {
      test_read: defineMethod({
        params: [
          required((raw) => raw),
          optional(parseBlockSelector, { kind: "tag", tag: "safe" }),
        ],
        handler: () => null,
      }),
    };
    const read = callBlocks(own);
    assert.deepEqual(read({ method: "test_read", params: [1] }), [{ kind: "tag", tag: "safe" }]);
    assert.deepEqual(read({ method: "test_read", params: [1, "0x2"] }), [
      { kind: "number", number: 2n },
    ]);
  });
});
