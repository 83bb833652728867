// The banner's line about the method policy in force on public endpoints.
import { DEFAULT_POLICY, type MethodPolicy } from "../edge/policy.ts";

export function describePublicPolicy(policy: MethodPolicy): string {
  if (policy === DEFAULT_POLICY)
    return "Public endpoints refuse eth_getBlockReceipts (HTTP 403), as Base's do: use the dedicated URL.";
  const rules = policy.public;
  if (rules.length === 0) return "Public endpoints serve every method (--policy).";
  const parts = rules.map(
    (r) =>
      `${r.action} ${r.method}${r.selectors === undefined ? "" : ` at ${r.selectors.join("|")}`}`,
  );
  return `Public endpoints: ${parts.join("; ")} (--policy; first match wins, else allowed).`;
}
