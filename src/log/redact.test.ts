import assert from "node:assert/strict";
import { test } from "node:test";
import { createLogger, forwardingLogger, readableLine } from "./logger.ts";
import { redactLine, redactText, redactValue } from "./redact.ts";

const SECRET = "s3cr3tK3y";

test("a URL keeps its scheme, host and port; path, query, fragment and user info go", () => {
  assert.equal(
    redactText(`wss://stream.example:8443/ws/${SECRET}?apikey=${SECRET}#x`),
    "wss://stream.example:8443/…redacted",
  );
  assert.equal(
    redactText(`https://user:${SECRET}@rpc.example/v2`),
    "https://rpc.example/…redacted",
  );
  assert.equal(
    redactText(`http://127.0.0.1:8545/rpc/${SECRET}`),
    "http://127.0.0.1:8545/…redacted",
  );
  assert.equal(redactText(`ws://h?token=${SECRET}`), "ws://h/…redacted");
  // Nothing secret to cut: left as it is.
  assert.equal(redactText("http://127.0.0.1:8545/"), "http://127.0.0.1:8545/");
  assert.equal(redactText("ws://10.0.0.1:9000"), "ws://10.0.0.1:9000");
  assert.equal(redactText("no url here: 0xab"), "no url here: 0xab");
});

test("a comma-separated list of servers: each URL cut on its own", () => {
  assert.equal(
    redactText(`nats://u:${SECRET}@10.0.0.1:4222,nats://u:${SECRET}@10.0.0.2:4222/x?t=${SECRET}`),
    "nats://10.0.0.1:4222,nats://10.0.0.2:4222/…redacted",
  );
});

test("URLs inside a sentence are cut, and the sentence's punctuation stays", () => {
  assert.equal(
    redactText(`fetch failed (HTTPS://rpc.example/v2/${SECRET}), then ws://a/b?k=${SECRET}.`),
    "fetch failed (HTTPS://rpc.example/…redacted), then ws://a/…redacted.",
  );
});

test("fields named like secrets are dropped at any depth; URLs in any string are cut", () => {
  const got = redactValue({
    apiKey: SECRET,
    nested: { Authorization: `Bearer ${SECRET}`, list: [{ "x-api-key": SECRET }], n: 7 },
    headers: { cookie: SECRET },
    upstream: { url: `https://rpc.example/v2/${SECRET}`, API_KEY: SECRET },
    err: { message: `connect to wss://s.example/${SECRET} failed`, stack: `at wss://s/${SECRET}` },
  });
  assert.deepEqual(got, {
    apiKey: "[redacted]",
    nested: { Authorization: "[redacted]", list: [{ "x-api-key": "[redacted]" }], n: 7 },
    headers: "[redacted]",
    upstream: { url: "https://rpc.example/…redacted", API_KEY: "[redacted]" },
    err: { message: "connect to wss://s.example/…redacted failed", stack: "at wss://s/…redacted" },
  });
});

test("a JSON line: secret keys and URLs go, the rest of the record is kept", () => {
  const line = `${JSON.stringify({ level: 30, msg: `at http://h/${SECRET}`, key: SECRET, block: 3 })}\n`;
  const out = redactLine(line);
  assert.ok(out.endsWith("\n"));
  assert.deepEqual(JSON.parse(out), {
    level: 30,
    msg: "at http://h/…redacted",
    key: "[redacted]",
    block: 3,
  });
  assert.ok(!out.includes(SECRET));
});

test("every line the logger writes is redacted: fields, message, child bindings, errors", () => {
  const lines: string[] = [];
  const logger = createLogger("debug", { write: (s: string) => void lines.push(s) });
  const child = logger.child({ module: "follow", upstream: `https://rpc.example/${SECRET}` });
  child.info({ url: `wss://s.example:443/ws?apikey=${SECRET}` }, "flashblocks stream connected");
  child.warn(`dialling wss://s.example/${SECRET} failed`);
  child.error({ err: new Error(`GET https://u:${SECRET}@rpc.example/x failed`) }, "upstream");
  child.debug({ options: { headers: { authorization: `Bearer ${SECRET}` } } }, "call");
  assert.equal(lines.length, 4);
  for (const line of lines) {
    assert.ok(!line.includes(SECRET), line);
    assert.ok(!readableLine(line).includes(SECRET));
  }
  assert.equal(JSON.parse(lines[0]!).url, "wss://s.example:443/…redacted");
  assert.equal(JSON.parse(lines[3]!).options.headers, "[redacted]");
});

test("a worker thread's records are redacted before they cross, and again on the main log", () => {
  const crossed: string[] = [];
  const main: string[] = [];
  const mainLog = createLogger("info", { write: (s: string) => void main.push(s) });
  const threadLog = forwardingLogger("info", (level, msg, fields) => {
    crossed.push(JSON.stringify([level, msg, fields]));
    mainLog[level](fields, msg);
  });
  threadLog.info({ url: `ws://h/${SECRET}` }, `connected to ws://h/${SECRET}`);
  threadLog.debug(`below the level: ws://h/${SECRET}`);
  assert.equal(crossed.length, 1, "a record below the thread's level does not cross");
  assert.ok(!crossed[0]!.includes(SECRET));
  // The main thread's log redacts what it is handed, whoever made it.
  mainLog.info({ apiKey: SECRET, url: `http://h/${SECRET}` }, `handed ws://h/${SECRET}`);
  assert.equal(main.length, 2);
  for (const line of main) assert.ok(!line.includes(SECRET), line);
});
