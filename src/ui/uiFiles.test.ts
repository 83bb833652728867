// GET /ui over real HTTP against `flashnode serve` on the fixture archive: content types, cache
// validation, the Content-Security-Policy, refusals; `GET /` keeps geth's health-check answer.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { importFixtureChain } from "../../test/utils/fixtures.ts";
import { startArchiveServer } from "../../test/utils/nodes.ts";
import { silentLogger, testFrontendOptions } from "../../test/utils/options.ts";
import type { RunningNode as RunningServer } from "../node/plan.ts";
import { contentSecurityPolicy, UI_FILES } from "./uiFiles.ts";

let server: RunningServer;
before(async () => {
  server = await startArchiveServer({
    datadir: importFixtureChain("ui"),
    frontend: testFrontendOptions(),
    logger: silentLogger,
  });
});
after(async () => {
  await server.close();
});

const get = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path.slice(1)}`, init);

test("the page and its files, with their content types, validators and policy", async () => {
  const host = new URL(server.url).host;
  const page = await get("/ui");
  assert.equal(page.status, 200);
  assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
  assert.equal(page.headers.get("cache-control"), "no-cache");
  assert.equal(page.headers.get("x-content-type-options"), "nosniff");
  const csp = page.headers.get("content-security-policy") ?? "";
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.match(csp, /style-src 'self'(;|$)/);
  assert.ok(csp.includes(`connect-src 'self' ws://${host} wss://${host};`), csp);
  const html = await page.text();
  assert.match(html, /<script type="module" src="\/ui\/app.js"><\/script>/);
  assert.equal((await get("/ui/")).status, 200, "with a trailing slash too");

  const types: Record<string, string> = {
    "app.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
    "favicon.svg": "image/svg+xml",
  };
  for (const [name, type] of Object.entries(types)) {
    const r = await get(`/ui/${name}`);
    assert.equal(r.status, 200, name);
    assert.equal(r.headers.get("content-type"), type, name);
    assert.equal(
      await r.text(),
      readFileSync(new URL(`./static/${name}`, import.meta.url), "utf8"),
      `${name} is served as carried`,
    );
  }

  // Revalidation: the same ETag answers 304 without a body.
  const etag = page.headers.get("etag") ?? "";
  assert.match(etag, /^"[\w-]+"$/);
  const again = await get("/ui", { headers: { "if-none-match": etag } });
  assert.equal(again.status, 304);
  assert.equal(await again.text(), "");

  const head = await get("/ui/app.js", { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.ok(Number(head.headers.get("content-length")) > 0);
  assert.equal(await head.text(), "");
});

test("refusals: unknown files 404, other methods 405; GET / is still geth's health check", async () => {
  for (const path of ["/ui/nope.js", "/ui/../package.json", "/ui/static/app.js", "/uix"]) {
    const r = await get(path);
    assert.equal(r.status, 404, path);
    await r.arrayBuffer();
  }
  const post = await get("/ui", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  assert.equal(post.status, 405);
  assert.equal(post.headers.get("allow"), "GET, HEAD");
  await post.arrayBuffer();
  const root = await get("/");
  assert.equal(root.status, 200);
  assert.equal(await root.text(), "");
});

test("serve has no flashblocks stream: flashnode_getTimings says so", async () => {
  const r = await fetch(server.url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "flashnode_getTimings", params: [] }),
  });
  const json = (await r.json()) as { result: { live: boolean; blocks: unknown[] } };
  assert.equal(json.result.live, false);
  assert.deepEqual(json.result.blocks, []);
});

test("the page loads nothing from elsewhere: every module and asset it names is served", () => {
  const names = new Set<string>(UI_FILES);
  for (const name of UI_FILES) {
    const text = readFileSync(new URL(`./static/${name}`, import.meta.url), "utf8");
    assert.doesNotMatch(text, /https?:\/\/(?!www\.w3\.org\/2000\/svg)/, `${name} names no URL`);
    for (const m of text.matchAll(/from "\.\/([^"]+)"/g))
      assert.ok(names.has(m[1]!), `${name} imports ${m[1]}, which is not served`);
    for (const m of text.matchAll(/(?:src|href)="\/ui\/([^"]+)"/g))
      assert.ok(names.has(m[1]!), `${name} refers to ${m[1]}, which is not served`);
  }
});

test("the policy names the WebSocket only for a plain Host", () => {
  assert.match(
    contentSecurityPolicy("127.0.0.1:8545"),
    /connect-src 'self' ws:\/\/127\.0\.0\.1:8545 wss:/,
  );
  assert.match(contentSecurityPolicy("[::1]:8545"), /ws:\/\/\[::1\]:8545/);
  for (const bad of ["evil.com; script-src *", "a b", undefined])
    assert.match(contentSecurityPolicy(bad), /connect-src 'self';/);
});
