import assert from "node:assert/strict";
import { test } from "node:test";
import { ReceiptsJsonCache } from "./receiptsCache.ts";

test("renders a block once, evicts the least recently used past the bound, never caches misses", () => {
  const cache = new ReceiptsJsonCache(10);
  const text = (b: Buffer | undefined) => b?.toString();
  let renders = 0;
  const render = (json: string | undefined) => () => {
    renders++;
    return json;
  };
  const a = new Uint8Array([1]);
  const b = new Uint8Array([2]);
  assert.equal(text(cache.get(a, render("[aaaa]"))), "[aaaa]");
  assert.equal(text(cache.get(a, render("[other]"))), "[aaaa]", "a hit does not render");
  assert.equal(renders, 1);
  assert.equal(text(cache.get(b, render("[bbbb]"))), "[bbbb]");
  cache.get(b, render("x"));
  assert.equal(renders, 2);
  cache.get(new Uint8Array([3]), render("[cccc]")); // 18 bytes > 10: evicts a (older)
  assert.equal(text(cache.get(a, render("[again]"))), "[again]");
  assert.equal(text(cache.get(new Uint8Array([4]), render(undefined))), undefined);
  assert.equal(
    text(cache.get(new Uint8Array([4]), render("[now]"))),
    "[now]",
    "a miss is not cached",
  );
});
