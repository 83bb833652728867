// The method policy, as data: per tier, an ordered list of rules (first match wins), each
// naming a method (or "*") and optionally the block selectors it applies to. The default is
// the public edge the spec describes: eth_getBlockReceipts is refused on public endpoints.
import type { CallSummary, Refusal, RequestContext } from "../rpc/method.ts";

export type Tier = RequestContext["tier"];

/** Selector classes a rule can name: the tags, "number" (hex number) and "hash". */
export type SelectorClass =
  | "latest"
  | "earliest"
  | "pending"
  | "safe"
  | "finalized"
  | "number"
  | "hash";

export type PolicyRule = {
  readonly method: string;
  readonly action: "allow" | "deny";
  /** Only calls whose block selector is one of these (others fall through to later rules). */
  readonly selectors?: readonly SelectorClass[];
};

export type MethodPolicy = Readonly<Record<Tier, readonly PolicyRule[]>>;

export const DEFAULT_POLICY: MethodPolicy = {
  public: [{ method: "eth_getBlockReceipts", action: "deny" }],
  dedicated: [],
};

/** proxyd's ErrMethodNotWhitelisted, which Base's public edge answers with. */
export const NOT_WHITELISTED: Refusal = {
  status: 403,
  code: -32001,
  message: "rpc method is not whitelisted",
};

/** Position of the block selector among each method's params. */
const SELECTOR_POSITION: Readonly<Record<string, number>> = {
  eth_getBlockReceipts: 0,
  eth_getBlockByNumber: 0,
  eth_getBlockTransactionCountByNumber: 0,
  eth_getTransactionByBlockNumberAndIndex: 0,
  eth_getUncleCountByBlockNumber: 0,
  eth_getUncleByBlockNumberAndIndex: 0,
  debug_getRawHeader: 0,
  debug_getRawBlock: 0,
  debug_getRawReceipts: 0,
  debug_traceBlockByNumber: 0,
  debug_traceBlockByHash: 0,
  debug_traceCall: 1,
  eth_getStorageAt: 2,
  eth_getBalance: 1,
  eth_getCode: 1,
  eth_getTransactionCount: 1,
  eth_getStorageValues: 1,
  eth_call: 1,
  eth_estimateGas: 1,
  eth_simulateV1: 1,
  eth_feeHistory: 1,
};

const TAGS = new Set(["latest", "earliest", "pending", "safe", "finalized"]);

/** The selector class of a call; a missing selector means latest, as the methods default. */
export function selectorClass(call: CallSummary): SelectorClass | undefined {
  const position = SELECTOR_POSITION[call.method];
  if (position === undefined) return undefined;
  const raw = Array.isArray(call.params) ? call.params[position] : undefined;
  if (raw === undefined || raw === null) return "latest";
  if (typeof raw === "string") {
    if (TAGS.has(raw)) return raw as SelectorClass;
    return raw.length === 66 ? "hash" : "number";
  }
  if (typeof raw === "object") {
    if ("blockHash" in raw) return "hash";
    // EIP-1898 {blockNumber} takes the tags too: {"blockNumber":"pending"} is a pending read.
    const n = (raw as { blockNumber?: unknown }).blockNumber;
    return typeof n === "string" && TAGS.has(n) ? (n as SelectorClass) : "number";
  }
  return undefined;
}

export function allowed(policy: MethodPolicy, tier: Tier, call: CallSummary): boolean {
  for (const rule of policy[tier]) {
    if (rule.method !== "*" && rule.method !== call.method) continue;
    if (rule.selectors !== undefined) {
      const cls = selectorClass(call);
      if (cls === undefined || !rule.selectors.includes(cls)) continue;
    }
    return rule.action === "allow";
  }
  return true;
}

export class PolicyError extends Error {
  readonly code = "POLICY_INVALID";
}

const CLASSES = new Set<string>([...TAGS, "number", "hash"]);

/** Validates a policy from a config file. */
export function parsePolicy(raw: unknown): MethodPolicy {
  if (typeof raw !== "object" || raw === null)
    throw new PolicyError("policy must be an object with public/dedicated rule lists");
  const out: Record<Tier, PolicyRule[]> = { public: [], dedicated: [] };
  for (const tier of ["public", "dedicated"] as const) {
    const rules = (raw as Record<string, unknown>)[tier];
    if (rules === undefined) {
      out[tier] = [...DEFAULT_POLICY[tier]];
      continue;
    }
    if (!Array.isArray(rules)) throw new PolicyError(`policy.${tier} must be a list of rules`);
    out[tier] = rules.map((r, i) => {
      const rule = r as { method?: unknown; action?: unknown; selectors?: unknown };
      if (typeof rule.method !== "string")
        throw new PolicyError(`policy.${tier}[${i}].method must be a string`);
      if (rule.action !== "allow" && rule.action !== "deny")
        throw new PolicyError(`policy.${tier}[${i}].action must be "allow" or "deny"`);
      if (rule.selectors === undefined) return { method: rule.method, action: rule.action };
      if (
        !Array.isArray(rule.selectors) ||
        !rule.selectors.every((s) => typeof s === "string" && CLASSES.has(s))
      ) {
        throw new PolicyError(
          `policy.${tier}[${i}].selectors must list ${[...CLASSES].join(", ")}`,
        );
      }
      return {
        method: rule.method,
        action: rule.action,
        selectors: rule.selectors as SelectorClass[],
      };
    });
  }
  return out;
}
