import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type CallSummary, callBlocks } from "../rpc/method.ts";
import { createMethods, METHOD_NAMES } from "../rpc/methods.ts";
import type { RpcBackend } from "../services/backend.ts";
import {
  allowed,
  DEFAULT_POLICY,
  describePolicy,
  type MethodPolicy,
  parsePolicy,
  selectorClasses,
} from "./policy.ts";

// Definitions are built without reading the backend.
const blocksOf = callBlocks(createMethods({} as RpcBackend));
const HASH = `0x${"00".repeat(32)}`;
const DENY_PENDING = parsePolicy(
  { public: [{ method: "*", action: "deny", selectors: ["pending"] }] },
  METHOD_NAMES,
);

function publicAllows(policy: MethodPolicy, method: string, params: unknown[]): boolean {
  return allowed(policy, "public", { method, params }, blocksOf);
}

describe("policy matching", () => {
  test("first matching rule wins; the default refuses eth_getBlockReceipts on public only", () => {
    assert.equal(publicAllows(DEFAULT_POLICY, "eth_getBlockReceipts", ["latest"]), false);
    const receipts: CallSummary = { method: "eth_getBlockReceipts", params: ["latest"] };
    assert.equal(allowed(DEFAULT_POLICY, "dedicated", receipts, blocksOf), true);
    assert.equal(publicAllows(DEFAULT_POLICY, "eth_getStorageAt", []), true);
    const ordered = parsePolicy(
      {
        public: [
          { method: "eth_getBlockReceipts", action: "allow", selectors: ["pending"] },
          { method: "eth_getBlockReceipts", action: "deny" },
        ],
      },
      METHOD_NAMES,
    );
    assert.equal(publicAllows(ordered, "eth_getBlockReceipts", ["pending"]), true);
    assert.equal(publicAllows(ordered, "eth_getBlockReceipts", ["0x1"]), false);
  });

  test("selector classes: tags, numbers, hashes, EIP-1898 objects", () => {
    const classes = (method: string, params: unknown[]) =>
      selectorClasses({ method, params }, blocksOf);
    assert.deepEqual(classes("eth_getStorageAt", ["0x1", "0x0"]), ["latest"]);
    assert.deepEqual(classes("eth_getBlockReceipts", [HASH]), ["hash"]);
    assert.deepEqual(classes("eth_getBlockReceipts", [{ blockNumber: "0x1" }]), ["number"]);
    assert.deepEqual(classes("eth_getBlockReceipts", [{ blockNumber: "pending" }]), ["pending"]);
    assert.deepEqual(classes("debug_getRawBlock", ["pending"]), ["pending"]);
    assert.deepEqual(classes("eth_getTransactionByBlockNumberAndIndex", ["0x1", "0x0"]), [
      "number",
    ]);
    assert.deepEqual(classes("eth_getBlockByHash", [HASH, false]), ["hash"]);
    assert.equal(classes("eth_chainId", []), undefined);
  });

  test("deny * at pending: every method that reads pending, in every form", () => {
    const refused: Array<[string, unknown[]]> = [
      ["eth_getBalance", ["0x0", "pending"]],
      ["eth_getBalance", ["0x0", { blockNumber: "pending" }]],
      ["eth_getBalance", ["0x0", { BLOCKNUMBER: "pending" }]],
      ["eth_createAccessList", [{}, "pending"]],
      ["eth_getProof", ["0x0", [], "pending"]],
      ["eth_call", [{}, "pending"]],
      ["eth_estimateGas", [{}]],
      ["eth_getLogs", [{ toBlock: "pending" }]],
      ["eth_getLogs", [{ fromBlock: "pending", toBlock: "latest" }]],
      ["eth_newFilter", [{}]],
    ];
    for (const [method, params] of refused) {
      assert.equal(publicAllows(DENY_PENDING, method, params), false, JSON.stringify(params));
    }
    const served: Array<[string, unknown[]]> = [
      ["eth_getBalance", ["0x0", "latest"]],
      ["eth_getBalance", ["0x0"]],
      ["eth_createAccessList", [{}]],
      ["eth_getProof", ["0x0", [], "latest"]],
      ["eth_call", [{}, { blockHash: HASH }]],
      ["eth_estimateGas", [{}, "latest"]],
      ["eth_getLogs", [{}]],
      ["eth_getLogs", [{ fromBlock: "0x1", toBlock: "latest" }]],
      ["eth_newFilter", [{ toBlock: "latest" }]],
      ["eth_chainId", []],
    ];
    for (const [method, params] of served) {
      assert.equal(publicAllows(DENY_PENDING, method, params), true, JSON.stringify(params));
    }
    const dedicated = { method: "eth_getProof", params: ["0x0", [], "pending"] };
    assert.equal(allowed(DENY_PENDING, "dedicated", dedicated, blocksOf), true);
  });

  test("a rule's selectors match a call naming any of them (eth_getLogs' two ends)", () => {
    const numbers = parsePolicy(
      { public: [{ method: "eth_getLogs", action: "deny", selectors: ["earliest"] }] },
      METHOD_NAMES,
    );
    assert.equal(publicAllows(numbers, "eth_getLogs", [{ fromBlock: "earliest" }]), false);
    assert.equal(publicAllows(numbers, "eth_getLogs", [{ toBlock: "earliest" }]), false);
    assert.equal(publicAllows(numbers, "eth_getLogs", [{ fromBlock: "0x0" }]), true);
  });
});

describe("a tier's rules are added to its defaults unless the policy replaces them", () => {
  test("one public rule keeps the public default: eth_getBlockReceipts is still refused", () => {
    assert.deepEqual(
      DENY_PENDING.public.map((r) => r.method),
      ["*", "eth_getBlockReceipts"],
    );
    assert.equal(publicAllows(DENY_PENDING, "eth_getBlockReceipts", ["latest"]), false);
    assert.equal(publicAllows(DENY_PENDING, "eth_getBalance", ["0x0", "pending"]), false);
    assert.equal(publicAllows(DENY_PENDING, "eth_getBalance", ["0x0", "latest"]), true);
  });

  test("the policy's own rules come first: an allow lifts a default refusal", () => {
    const pendingReceipts = parsePolicy(
      {
        public: [{ method: "eth_getBlockReceipts", action: "allow", selectors: ["pending"] }],
      },
      METHOD_NAMES,
    );
    assert.equal(publicAllows(pendingReceipts, "eth_getBlockReceipts", ["pending"]), true);
    assert.equal(publicAllows(pendingReceipts, "eth_getBlockReceipts", ["latest"]), false);
  });

  test('{"rules": […], "replace": true} replaces the tier\'s defaults', () => {
    const replaced = parsePolicy(
      {
        public: { rules: [{ method: "*", action: "deny", selectors: ["pending"] }], replace: true },
      },
      METHOD_NAMES,
    );
    assert.equal(replaced.public.length, 1);
    assert.equal(publicAllows(replaced, "eth_getBlockReceipts", ["latest"]), true);
    assert.equal(publicAllows(replaced, "eth_getBlockReceipts", ["pending"]), false);
    const open = parsePolicy({ public: { rules: [], replace: true } }, METHOD_NAMES);
    assert.deepEqual(open.public, []);
    // Without "replace" the object form adds, as the list does.
    const added = parsePolicy({ public: { rules: [] } }, METHOD_NAMES);
    assert.equal(publicAllows(added, "eth_getBlockReceipts", ["latest"]), false);
  });

  test("a tier or key that is not one is refused", () => {
    assert.throws(() => parsePolicy({ pubic: [] }, METHOD_NAMES), {
      code: "POLICY_INVALID",
      message:
        'policy: unknown tier "pubic" (did you mean public?); the tiers are public, dedicated',
    });
    assert.throws(
      () => parsePolicy({ public: { rules: [], replace: "yes" } }, METHOD_NAMES),
      /policy\.public\.replace must be true or false/,
    );
    assert.throws(
      () => parsePolicy({ public: { rule: [] } }, METHOD_NAMES),
      /policy\.public: unknown key "rule" \(did you mean rules\?\)/,
    );
    assert.throws(
      () =>
        parsePolicy(
          { public: { rules: [{ method: "eth_getProff", action: "deny" }] } },
          METHOD_NAMES,
        ),
      /policy\.public\.rules\[0\]\.method: unknown method "eth_getProff"/,
    );
  });

  test("the banner prints the resulting policy, the defaults named", () => {
    assert.equal(
      describePolicy(DEFAULT_POLICY),
      "Public endpoints refuse eth_getBlockReceipts (HTTP 403), as Base's do: use the dedicated URL.",
    );
    assert.equal(
      describePolicy(DENY_PENDING),
      "Method policy (first match wins, refusals are HTTP 403): public: deny * at pending, deny eth_getBlockReceipts (default); dedicated: everything allowed.",
    );
    const replaced = parsePolicy({ public: { rules: [], replace: true } }, METHOD_NAMES);
    assert.equal(
      describePolicy(replaced),
      "Method policy (first match wins, refusals are HTTP 403): public: everything allowed; dedicated: everything allowed.",
    );
  });
});

describe("parsePolicy", () => {
  test("a misspelt method is refused with the nearest name; * and subscriptions are known", () => {
    assert.throws(
      () => parsePolicy({ public: [{ method: "eth_getProff", action: "deny" }] }, METHOD_NAMES),
      {
        code: "POLICY_INVALID",
        message:
          'policy.public[0].method: unknown method "eth_getProff" (did you mean eth_getProof?)',
      },
    );
    assert.throws(
      () => parsePolicy({ dedicated: [{ method: "frobnicate", action: "deny" }] }, METHOD_NAMES),
      { message: 'policy.dedicated[0].method: unknown method "frobnicate"' },
    );
    const known = [...METHOD_NAMES, "eth_subscribe"];
    const p = parsePolicy(
      {
        public: [
          { method: "eth_subscribe", action: "deny" },
          { method: "*", action: "allow" },
        ],
      },
      known,
    );
    assert.equal(p.public.length, 3, "two rules, then the public default");
    assert.deepEqual(p.dedicated, [], "a tier left out keeps its default");
  });

  test("actions and selectors are checked", () => {
    assert.throws(
      () => parsePolicy({ public: [{ method: "*", action: "maybe" }] }, METHOD_NAMES),
      /action must be/,
    );
    assert.throws(
      () =>
        parsePolicy(
          { public: [{ method: "*", action: "deny", selectors: ["soon"] }] },
          METHOD_NAMES,
        ),
      /selectors must list latest, earliest, pending, safe, finalized, number, hash/,
    );
  });
});

test("the banner's line: the rules in force, in order", () => {
  const mixed = parsePolicy(
    {
      public: [
        { method: "eth_getBlockReceipts", action: "allow", selectors: ["pending", "latest"] },
        { method: "eth_getBlockReceipts", action: "deny" },
      ],
      dedicated: [{ method: "debug_traceCall", action: "deny" }],
    },
    METHOD_NAMES,
  );
  assert.equal(
    describePolicy(mixed),
    "Method policy (first match wins, refusals are HTTP 403): public: allow eth_getBlockReceipts at pending|latest, deny eth_getBlockReceipts, deny eth_getBlockReceipts (default); dedicated: deny debug_traceCall.",
  );
});
