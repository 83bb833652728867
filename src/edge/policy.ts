// The method policy, as data: per tier, an ordered list of rules (first match wins), each
// naming a method (or "*") and optionally the block selectors it applies to. The default is
// the public edge the spec describes: eth_getBlockReceipts is refused on public endpoints.
// Where each method takes its blocks is not written here: the method registry declares it with
// each parameter's parser (rpc/method.ts callBlocks), and a call's blocks are read through it.
import type { CallBlocks, CallSummary, Refusal, RequestContext } from "../rpc/method.ts";
import type { BlockSelector } from "../services/blockSelector.ts";
import { didYouMean } from "../util/nearestName.ts";

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
  /** Only calls naming a block of one of these classes (others fall through to later rules). */
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

const TIERS = ["public", "dedicated"] as const;
const CLASSES: readonly SelectorClass[] = [
  "latest",
  "earliest",
  "pending",
  "safe",
  "finalized",
  "number",
  "hash",
];

function classOf(block: BlockSelector): SelectorClass {
  return block.kind === "tag" ? block.tag : block.kind;
}

/**
 * The selector classes of the blocks a call names (several for eth_getLogs' fromBlock and
 * toBlock); undefined when its method takes no block.
 */
export function selectorClasses(
  call: CallSummary,
  blocksOf: CallBlocks,
): readonly SelectorClass[] | undefined {
  return blocksOf(call)?.map(classOf);
}

/**
 * Whether a tier serves a call. A rule with selectors matches a call naming a block of any of
 * them; a call naming no block (its method takes none, or its value is refused) never matches it.
 */
export function allowed(
  policy: MethodPolicy,
  tier: Tier,
  call: CallSummary,
  blocksOf: CallBlocks,
): boolean {
  // Read at most once per call, and only when a rule asks.
  let classes: readonly SelectorClass[] | undefined | null = null;
  for (const rule of policy[tier]) {
    if (rule.method !== "*" && rule.method !== call.method) continue;
    const selectors = rule.selectors;
    if (selectors !== undefined) {
      if (classes === null) classes = selectorClasses(call, blocksOf);
      if (classes === undefined || !classes.some((c) => selectors.includes(c))) continue;
    }
    return rule.action === "allow";
  }
  return true;
}

export class PolicyError extends Error {
  readonly code = "POLICY_INVALID";
}

/**
 * Validates a policy from a flag or a config file. `methods` are the names a rule may give
 * besides "*": a misspelt one is refused here, with the nearest name, rather than never matching.
 */
export function parsePolicy(raw: unknown, methods: readonly string[]): MethodPolicy {
  if (typeof raw !== "object" || raw === null)
    throw new PolicyError("policy must be an object with public/dedicated rule lists");
  const known = new Set(methods);
  const out: Record<Tier, PolicyRule[]> = { public: [], dedicated: [] };
  for (const tier of TIERS) {
    const rules = (raw as Record<string, unknown>)[tier];
    if (rules === undefined) {
      out[tier] = [...DEFAULT_POLICY[tier]];
      continue;
    }
    if (!Array.isArray(rules)) throw new PolicyError(`policy.${tier} must be a list of rules`);
    out[tier] = rules.map((r, i) => {
      const rule = r as { method?: unknown; action?: unknown; selectors?: unknown };
      const at = `policy.${tier}[${i}]`;
      if (typeof rule.method !== "string") throw new PolicyError(`${at}.method must be a string`);
      if (rule.method !== "*" && !known.has(rule.method)) {
        throw new PolicyError(
          `${at}.method: unknown method "${rule.method}"${didYouMean(rule.method, methods)}`,
        );
      }
      if (rule.action !== "allow" && rule.action !== "deny")
        throw new PolicyError(`${at}.action must be "allow" or "deny"`);
      if (rule.selectors === undefined) return { method: rule.method, action: rule.action };
      if (
        !Array.isArray(rule.selectors) ||
        !rule.selectors.every((s) => CLASSES.includes(s as SelectorClass))
      ) {
        throw new PolicyError(`${at}.selectors must list ${CLASSES.join(", ")}`);
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

function sameRules(a: readonly PolicyRule[], b: readonly PolicyRule[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function describeRule(rule: PolicyRule): string {
  const at = rule.selectors === undefined ? "" : ` at ${rule.selectors.join("|")}`;
  return `${rule.action} ${rule.method}${at}`;
}

/** One line for a start banner: the policy in force, in the order its rules apply. */
export function describePolicy(policy: MethodPolicy): string {
  if (TIERS.every((tier) => sameRules(policy[tier], DEFAULT_POLICY[tier])))
    return "Public endpoints refuse eth_getBlockReceipts (HTTP 403), as Base's do: use the dedicated URL.";
  const tiers = TIERS.map((tier) => {
    const rules = policy[tier];
    return `${tier}: ${rules.length === 0 ? "everything allowed" : rules.map(describeRule).join(", ")}`;
  });
  return `Method policy (first match wins, refusals are HTTP 403): ${tiers.join("; ")}.`;
}
