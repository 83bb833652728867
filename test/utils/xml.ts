// A small well-formedness check for the SVG the benches write (no XML parser among the
// dependencies): every tag is balanced and properly nested, attributes are quoted and unique,
// text and attribute values hold no raw `<` or stray `&`, and there is exactly one root element.
import assert from "node:assert/strict";

const TAG = /^<(\/)?([A-Za-z_][\w:.-]*)((?:\s+[A-Za-z_:][\w:.-]*="[^"<]*")*)\s*(\/)?>$/;
const ATTR = /([A-Za-z_:][\w:.-]*)="([^"<]*)"/g;
const STRAY_AMP = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9A-Fa-f]+);)/;

/** Asserts `text` is one well-formed XML element; returns the root element's name. */
export function assertWellFormedXml(text: string): string {
  const stack: string[] = [];
  let root: string | undefined;
  let last = 0;
  for (const m of text.matchAll(/<[^>]*>/g)) {
    const between = text.slice(last, m.index);
    assert.doesNotMatch(between, STRAY_AMP, `stray & in text: ${between.slice(0, 80)}`);
    if (stack.length === 0) assert.match(between, /^\s*$/, "text outside the root element");
    last = m.index + m[0].length;
    const tag = TAG.exec(m[0]);
    assert.ok(tag !== null, `malformed tag: ${m[0].slice(0, 120)}`);
    const [, closing, name, attrs, selfClosing] = tag;
    const seen = new Set<string>();
    for (const a of (attrs ?? "").matchAll(ATTR)) {
      assert.ok(!seen.has(a[1]!), `duplicate attribute ${a[1]} in <${name}>`);
      seen.add(a[1]!);
      assert.doesNotMatch(a[2]!, STRAY_AMP, `stray & in attribute ${a[1]}`);
    }
    if (closing !== undefined) {
      assert.equal(selfClosing, undefined, `</${name}/>`);
      assert.equal(stack.pop(), name, `</${name}> closes another element`);
      continue;
    }
    if (stack.length === 0) {
      assert.equal(root, undefined, "more than one root element");
      root = name;
    }
    if (selfClosing === undefined) stack.push(name!);
  }
  assert.match(text.slice(last), /^\s*$/, "text after the root element");
  assert.deepEqual(stack, [], "unclosed elements");
  assert.ok(root !== undefined, "no element");
  return root;
}
