import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { tempDatadir } from "../../test/utils/fixtures.ts";
import { configDoc } from "./configDoc.ts";
import { envName, resolveOptions } from "./options.ts";
import { OPTIONS } from "./optionTable.ts";

test("precedence: flag > FLASHNODE_* > config file > default", () => {
  const file = join(tempDatadir("config"), "flashnode.json");
  writeFileSync(
    file,
    JSON.stringify({
      port: 9001,
      "rate-limit": 7,
      "block-time": "5s",
      "api-key": ["file-key-0001"],
    }),
  );
  const env = { FLASHNODE_RATE_LIMIT: "9", FLASHNODE_BLOCK_TIME: "3s" };
  const { values } = resolveOptions("dev", ["--config", file, "--block-time", "1s"], env);
  assert.equal(values["block-time"], 1000, "flag wins");
  assert.equal(values["rate-limit"], 9, "env over file");
  assert.equal(values.port, 9001, "file over default");
  assert.deepEqual(values["api-key"], ["file-key-0001"]);
  assert.equal(values.host, "127.0.0.1", "default");
  assert.deepEqual(
    resolveOptions("dev", [], { FLASHNODE_API_KEYS: "a-key-00001,b-key-00002" }).values["api-key"],
    ["a-key-00001", "b-key-00002"],
  );
});

test("bad input is a clear usage error", () => {
  assert.throws(() => resolveOptions("dev", ["--port", "x"], {}), /--port must be a whole number/);
  assert.throws(() => resolveOptions("dev", ["--nope"], {}), /unknown flag --nope for dev/);
  const file = join(tempDatadir("config"), "bad.json");
  writeFileSync(file, JSON.stringify({ colour: "blue" }));
  assert.throws(() => resolveOptions("serve", ["--config", file], {}), /unknown option "colour"/);
  const dev = (...argv: string[]) => resolveOptions("dev", argv, {}).values;
  assert.throws(() => dev("--block-time", "2 minutes"), /--block-time must be a duration/);
  assert.equal(dev("--block-time", "2")["block-time"], 2000);
  assert.equal(dev("--flashblock-interval", "250")["flashblock-interval"], 250);
  assert.equal(dev("--nats-block-retention", "24h")["nats-block-retention"], 86_400_000);
  assert.equal(dev("--idle-timeout", "1.5m")["idle-timeout"], 90_000);
  assert.throws(() => dev("--block-time", "2d"), /like 2s, 200ms, 10m or 24h, got 2d/);
});

test("every option has help and an environment variable", () => {
  for (const o of OPTIONS) {
    assert.ok(o.help.length > 10, o.name);
    assert.match(envName(o.name), /^FLASHNODE_[A-Z0-9_]+$/);
  }
});

test("docs/config.md is the option table's (regenerate with scripts/gen-config-doc.ts)", async () => {
  const { readFileSync } = await import("node:fs");
  const doc = readFileSync(new URL("../../docs/config.md", import.meta.url), "utf8");
  for (const o of OPTIONS)
    assert.ok(doc.includes(`\`--${o.name}\``), `docs/config.md lacks --${o.name}`);
  assert.equal(
    doc,
    configDoc(),
    "docs/config.md differs from the option table: node --import tsx scripts/gen-config-doc.ts",
  );
});

test("the hardfork is --hardfork (FLASHNODE_HARDFORK, config key hardfork); --fork is refused with a hint", () => {
  assert.equal(resolveOptions("dev", [], {}).values.hardfork, "osaka");
  assert.equal(resolveOptions("dev", ["--hardfork", "prague"], {}).values.hardfork, "prague");
  assert.equal(
    resolveOptions("dev", [], { FLASHNODE_HARDFORK: "cancun" }).values.hardfork,
    "cancun",
  );
  const hint =
    /the hardfork is --hardfork \(cancun, prague, osaka\); to fork a live chain, --fork-url URL/;
  for (const argv of [["--fork", "prague"], ["--fork=prague"]]) {
    assert.throws(() => resolveOptions("dev", argv, {}), /^Error: --fork is not a flag: /);
    assert.throws(() => resolveOptions("dev", argv, {}), hint);
  }
  assert.throws(
    () => resolveOptions("dev", [], { FLASHNODE_FORK: "prague" }),
    /FLASHNODE_FORK is not read: the hardfork is --hardfork/,
  );
  const file = join(tempDatadir("config"), "fork.json");
  writeFileSync(file, JSON.stringify({ fork: "prague" }));
  assert.throws(
    () => resolveOptions("dev", ["--config", file], {}),
    /"fork" is not an option: the hardfork is --hardfork/,
  );
  writeFileSync(file, JSON.stringify({ hardfork: "prague" }));
  assert.equal(resolveOptions("dev", ["--config", file], {}).values.hardfork, "prague");
  // Commands without a hardfork: an unknown flag like any other.
  assert.throws(
    () => resolveOptions("serve", ["--fork", "x"], {}),
    /unknown flag --fork for serve/,
  );
});

test("--nats takes servers comma-separated as well as repeated, as FLASHNODE_NATS does", () => {
  const [a, b, c] = ["nats://n1:4222", "nats://n2:4222", "nats://n3:4222"];
  for (const argv of [
    ["--nats", `${a},${b},${c}`],
    ["--nats", `${a}, ${b}`, "--nats", c!],
  ])
    assert.deepEqual(resolveOptions("replica", argv, {}).values.nats, [a, b, c]);
  assert.deepEqual(resolveOptions("follow", [], { FLASHNODE_NATS: `${a},${b}` }).values.nats, [
    a,
    b,
  ]);
  // A header's value may hold commas: it stays one header.
  assert.deepEqual(
    resolveOptions("replica", ["--fork-header", "Accept: a, b"], {}).values["fork-header"],
    ["Accept: a, b"],
  );
});
