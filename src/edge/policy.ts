// The method policy, as data: per tier, an ordered list of rules (first match wins), each
// naming a method (or "*") and optionally the block selectors it applies to. The default is
// the public edge the spec describes: eth_getBlockReceipts is refused on public endpoints. A
// policy's rules for a tier come before that tier's defaults, which stay unless the policy says
// it replaces them: a rule added never drops a refusal without a word.
// Where each method takes its blocks is not written here: the method registry declares it with
// each parameter's parser (rpc/method.ts callBlocks), and a call's blocks are read through it.
import type { CallBlocks, CallSummary, Refusal, RequestContext } from "../rpc/method.ts";
import type { BlockSelector } from "../services/blockSelector.ts";
import { FlashnodeError } from "../util/errors.ts";
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
  /** One of the tier's default rules (the banner names it so). */
  readonly isDefault?: true;
};

export type MethodPolicy = Readonly<Record<Tier, readonly PolicyRule[]>>;

export const DEFAULT_POLICY: MethodPolicy = {
  public: [{ method: "eth_getBlockReceipts", action: "deny", isDefault: true }],
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

export class PolicyError extends FlashnodeError {
  readonly code = "POLICY_INVALID";
}

/**
 * Validates a policy from a flag or a config file. Per tier, a list of rules (added before the
 * tier's defaults) or {"rules": [...], "replace": true} (instead of them). `methods` are the names
 * a rule may give besides "*": a misspelt one is refused here, with the nearest name, rather
 * than never matching.
 */
export function parsePolicy(raw: unknown, methods: readonly string[]): MethodPolicy {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new PolicyError("policy must be an object with public/dedicated rule lists");
  for (const key of Object.keys(raw))
    if (!(TIERS as readonly string[]).includes(key))
      throw new PolicyError(
        `policy: unknown tier "${key}"${didYouMean(key, TIERS)}; the tiers are ${TIERS.join(", ")}`,
      );
  const known = new Set(methods);
  const out: Record<Tier, PolicyRule[]> = { public: [], dedicated: [] };
  for (const tier of TIERS) {
    const given = tierRules((raw as Record<string, unknown>)[tier], `policy.${tier}`);
    if (given === undefined) {
      out[tier] = [...DEFAULT_POLICY[tier]];
      continue;
    }
    const rules = given.rules.map((r, i) => parseRule(r, `${given.at}[${i}]`, known, methods));
    out[tier] = given.replace ? rules : [...rules, ...DEFAULT_POLICY[tier]];
  }
  return out;
}

/** A tier's entry: its rule list, where it is (for errors), and whether it replaces the default. */
function tierRules(
  raw: unknown,
  at: string,
): { rules: unknown[]; at: string; replace: boolean } | undefined {
  if (raw === undefined) return undefined;
  if (Array.isArray(raw)) return { rules: raw, at, replace: false };
  if (typeof raw !== "object" || raw === null)
    throw new PolicyError(`${at} must be a list of rules, or {"rules":[…],"replace":true}`);
  const o = raw as Record<string, unknown>;
  for (const key of Object.keys(o))
    if (key !== "rules" && key !== "replace")
      throw new PolicyError(
        `${at}: unknown key "${key}"${didYouMean(key, ["rules", "replace"])}; it takes rules and replace`,
      );
  if (!Array.isArray(o.rules)) throw new PolicyError(`${at}.rules must be a list of rules`);
  if (o.replace !== undefined && typeof o.replace !== "boolean")
    throw new PolicyError(`${at}.replace must be true or false`);
  return { rules: o.rules, at: `${at}.rules`, replace: o.replace === true };
}

function parseRule(
  r: unknown,
  at: string,
  known: ReadonlySet<string>,
  methods: readonly string[],
): PolicyRule {
  const rule = (r ?? {}) as { method?: unknown; action?: unknown; selectors?: unknown };
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
}

function sameRules(a: readonly PolicyRule[], b: readonly PolicyRule[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function describeRule(rule: PolicyRule): string {
  const at = rule.selectors === undefined ? "" : ` at ${rule.selectors.join("|")}`;
  return `${rule.action} ${rule.method}${at}${rule.isDefault === true ? " (default)" : ""}`;
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
