// The shape check of "speconly" execution-apis files: the client's answer is checked for its
// schema, not its values.
import assert from "node:assert/strict";

/**
 * Keys the spec makes optional that a generating client had and this node rightly leaves out:
 * eth_capabilities' `deleteStrategy` describes a retention window (EthCapabilitiesEffectiveResource
 * requires only `disabled`); geth had one for logs, the archive keeps logs for ever.
 */
const SPEC_OPTIONAL_KEYS = new Set(["deleteStrategy"]);

/** Keys of a JSON map rather than a struct: addresses (txpool's senders) or numbers (nonces). */
const MAP_KEY = /^(0x[0-9a-fA-F]{40}|\d+)$/;

function isMap(o: Record<string, unknown>): boolean {
  const keys = Object.keys(o);
  return keys.length > 0 && keys.every((k) => MAP_KEY.test(k));
}

/**
 * The same JSON shape: kinds, object keys (recursively), and the first element of arrays. A map
 * (keys that are addresses or numbers) is a map of any keys whose values have the shape of the
 * expected value of the same key, or else of its first: which senders and nonces a pool holds is
 * a value.
 */
export function assertSameShape(actual: unknown, expected: unknown, path: string): void {
  const kind = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
  assert.equal(kind(actual), kind(expected), `kind at ${path || "the top"}`);
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length > 0) {
      assert.ok(actual.length > 0, `${path} is empty`);
      assertSameShape(actual[0], expected[0], `${path}[0]`);
    }
  } else if (kind(expected) === "object") {
    const a = actual as Record<string, unknown>;
    const e = expected as Record<string, unknown>;
    if (isMap(e) || (Object.keys(e).length === 0 && isMap(a))) {
      assert.ok(
        Object.keys(a).every((k) => MAP_KEY.test(k)),
        `map keys at ${path}`,
      );
      // The same key's value when the expected map has it (a transaction of the same type).
      for (const [k, v] of Object.entries(a)) {
        const sample = e[k] ?? Object.values(e)[0];
        if (sample !== undefined) assertSameShape(v, sample, `${path}.${k}`);
      }
      return;
    }
    const wanted = Object.keys(e).filter((k) => k in a || !SPEC_OPTIONAL_KEYS.has(k));
    assert.deepEqual(Object.keys(a).sort(), wanted.sort(), `keys at ${path || "the top"}`);
    for (const k of wanted) assertSameShape(a[k], e[k], `${path}.${k}`);
  }
}
