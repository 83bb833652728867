// The one resolver places every block a registered method reads: the chain's own, or (a chain
// forked at F) the upstream's past. The past layer reads where each method takes its block from
// the registry alone, so every method that declares what it reads is routed here.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { RpcBackend } from "../../services/backend.ts";
import type { BlockSelector } from "../../services/blockSelector.ts";
import type { ForkHistoryService } from "../../services/forkHistory.ts";
import { bytesToHex } from "../../util/hex.ts";
import { blockParamAt, layered, type MethodDef, type RequestContext } from "../method.ts";
import { createMethods } from "../methods.ts";
import { placeBlock } from "../resolveBlock.ts";
import { pastLayer } from "./pastRoutes.ts";

const F = 10;
const HEAD = 12;
const OWN_HASH = new Uint8Array(32).fill(0x11); // the chain's block F + 1
const UNKNOWN_HASH = new Uint8Array(32).fill(0x22);
const CTX: RequestContext = { tier: "public" };

/** A chain forked at F (or not) whose head is HEAD; safe and finalized trail it. */
function backendAt(fork: boolean, safe = HEAD): RpcBackend {
  return {
    chain: {
      headNumber: () => HEAD,
      blockNumber: (hash: Uint8Array) =>
        bytesToHex(hash) === bytesToHex(OWN_HASH) ? F + 1 : undefined,
      transactionLocation: () => undefined,
    },
    forkchoice: () => ({ safe, finalized: safe }),
    ...(fork
      ? {
          fork: { chainId: 1n, number: F, hash: new Uint8Array(32), origin: "", retryBackoffMs: 0 },
        }
      : {}),
  } as unknown as RpcBackend;
}

const num = (n: number): BlockSelector => ({ kind: "number", number: BigInt(n) });
const tag = (t: "latest" | "pending" | "earliest" | "safe"): BlockSelector => ({
  kind: "tag",
  tag: t,
});

describe("placeBlock: whose a block is", () => {
  const forked = backendAt(true);

  test("a chain not forked has no past", () => {
    const dev = backendAt(false);
    for (const sel of [
      num(0),
      tag("earliest"),
      { kind: "hash", hash: UNKNOWN_HASH, requireCanonical: false } as const,
    ])
      for (const reads of ["state", "block"] as const)
        assert.deepEqual(placeBlock(dev, sel, reads), { past: false });
  });

  test("state below F is the upstream's; at F it is the chain's own", () => {
    assert.deepEqual(placeBlock(forked, num(F - 1), "state"), {
      past: true,
      number: BigInt(F - 1),
    });
    assert.deepEqual(placeBlock(forked, num(F), "state"), { past: false });
    assert.deepEqual(placeBlock(forked, undefined, "state"), { past: false }, "latest");
  });

  test("blocks at or below F are the upstream's", () => {
    assert.deepEqual(placeBlock(forked, num(F), "block"), { past: true, number: BigInt(F) });
    assert.deepEqual(placeBlock(forked, num(F + 1), "block"), { past: false });
    assert.deepEqual(placeBlock(forked, tag("earliest"), "block"), { past: true, number: 0n });
  });

  test("tags through the chain's head and forkchoice; pending is always the chain's", () => {
    assert.deepEqual(placeBlock(forked, tag("pending"), "block"), { past: false });
    assert.deepEqual(placeBlock(backendAt(true, F - 2), tag("safe"), "state"), {
      past: true,
      number: BigInt(F - 2),
    });
    assert.deepEqual(placeBlock(forked, tag("safe"), "state"), { past: false });
  });

  test("a hash the chain holds is placed by its number; another is the upstream's", () => {
    const own = { kind: "hash", hash: OWN_HASH, requireCanonical: false } as const;
    const other = { kind: "hash", hash: UNKNOWN_HASH, requireCanonical: false } as const;
    assert.deepEqual(placeBlock(forked, own, "block"), { past: false });
    assert.deepEqual(placeBlock(forked, other, "state"), { past: true, hash: UNKNOWN_HASH });
  });
});

describe("the past layer routes every method the registry says reads a block", () => {
  /** The upstream's answers, and what was asked of it. */
  function upstream(): { past: ForkHistoryService; asked: string[] } {
    const asked: string[] = [];
    const block = { hash: bytesToHex(UNKNOWN_HASH), number: "0x9" };
    const ask = <T>(what: string, answer: T): T => {
      asked.push(what);
      return answer;
    };
    const past: ForkHistoryService = {
      base: { chainId: 1n, number: F, hash: new Uint8Array(32) },
      state: {} as ForkHistoryService["state"],
      blockByNumber: async () => ask("blockByNumber", block),
      blockByHash: async () => ask("blockByHash", block),
      blockReceipts: async () => ask("blockReceipts", []),
      transaction: async () => ask("transaction", null),
      receipt: async () => ask("receipt", null),
      logs: async () => ask("logs", []),
      forward: async (method) => ask(`forward ${method}`, null),
    };
    return { past, asked };
  }

  const registry = createMethods({} as RpcBackend);
  const atBlock = Object.entries(registry).filter(
    ([, def]) => def.reads === "state" || def.reads === "block" || def.reads === "proof",
  );

  /** The registry's methods answering "own", behind the past layer. */
  function routed(past: ForkHistoryService) {
    const own: Record<string, MethodDef> = {};
    for (const [name, def] of Object.entries(registry))
      own[name] = { ...def, handler: () => "own" };
    return layered(own, [pastLayer(backendAt(true), past)]);
  }

  /** A call's arguments with `value` as its block parameter. */
  function argsWith(def: MethodDef, value: unknown): unknown[] {
    const args: unknown[] = def.params.map(() => undefined);
    args[blockParamAt(def)!] = value;
    return args;
  }

  /** Whether a method's block parameter is a bare hash (eth_getBlockByHash & co.). */
  function takesHashOnly(def: MethodDef): boolean {
    try {
      def.params[blockParamAt(def)!]?.parse("latest");
      return false;
    } catch {
      return true;
    }
  }

  test("covers the methods that read a block's state or contents", () => {
    const names = atBlock.map(([n]) => n);
    for (const n of [
      "eth_getBalance",
      "eth_call",
      "eth_getProof",
      "eth_getBlockByNumber",
      "debug_traceBlockByHash",
    ])
      assert.ok(names.includes(n), n);
  });

  test("a block in the upstream's past goes there; pending stays the chain's", async () => {
    for (const [name, def] of atBlock) {
      const { past, asked } = upstream();
      const methods = routed(past);
      const byHash = takesHashOnly(def);
      const inPast = byHash ? UNKNOWN_HASH : num(F - 1);
      const answer = await methods[name]!.handler(argsWith(def, inPast), CTX, []);
      assert.notEqual(answer, "own", name);
      assert.ok(asked.length > 0, `${name} asked the upstream nothing`);
      if (!byHash) {
        assert.equal(
          await methods[name]!.handler(argsWith(def, tag("pending")), CTX, []),
          "own",
          name,
        );
      }
    }
  });

  test("a transaction the chain does not hold is the upstream's", async () => {
    const { past, asked } = upstream();
    const methods = routed(past);
    assert.equal(await methods.eth_getTransactionByHash!.handler([UNKNOWN_HASH], CTX, []), "own");
    const noneLocal = { ...registry.eth_getTransactionByHash!, handler: () => null };
    const layer = pastLayer(backendAt(true), past);
    const h = layer("eth_getTransactionByHash", noneLocal, noneLocal.handler);
    assert.equal(await h([UNKNOWN_HASH], CTX, []), null);
    assert.deepEqual(asked, ["transaction"]);
  });

  test("a method that reads no block, or only the chain's own, is passed on as it is", () => {
    const { past } = upstream();
    const layer = pastLayer(backendAt(true), past);
    for (const name of ["eth_chainId", "eth_feeHistory", "eth_newFilter"]) {
      const def = registry[name]!;
      assert.equal(layer(name, def, def.handler), def.handler, name);
    }
  });
});
