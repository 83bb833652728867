// Every option is parsed once, when options are resolved, by its kind: a duration into
// milliseconds with its unit (a bare number in the option's own unit), a choice into one of its
// choices, a default as a given value; a command reads the result with its type, no cast.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { tempDatadir } from "../../test/utils/fixtures.ts";
import { resolveOptions } from "./options.ts";
import { type Command, OPTIONS } from "./optionTable.ts";

test("durations are milliseconds, each unit and a bare number in the option's unit", () => {
  const dev = (...argv: string[]) => resolveOptions("dev", argv, {}).values;
  assert.equal(dev("--block-time", "200ms")["block-time"], 200);
  assert.equal(dev("--block-time", "1.5s")["block-time"], 1500);
  assert.equal(dev("--block-time", "10m")["block-time"], 600_000);
  assert.equal(dev("--block-time", "24h")["block-time"], 86_400_000);
  // A bare number: seconds for --block-time, milliseconds for --flashblock-interval.
  assert.equal(dev("--block-time", "3")["block-time"], 3000);
  assert.equal(dev("--flashblock-interval", "3")["flashblock-interval"], 3);
  const follow = resolveOptions("follow", ["--poll-interval", "100", "--fork-timeout", "2s"], {});
  assert.equal(follow.values["poll-interval"], 100);
  assert.equal(follow.values["fork-timeout"], 2000);
  // A number in the config file is a bare number too.
  const file = join(tempDatadir("config"), "durations.json");
  writeFileSync(file, JSON.stringify({ "block-time": 4, "request-timeout": "1m" }));
  const fromFile = resolveOptions("dev", ["--config", file], {}).values;
  assert.equal(fromFile["block-time"], 4000);
  assert.equal(fromFile["request-timeout"], 60_000);
});

test("a bad duration is one line naming the option and where it came from", () => {
  for (const bad of ["2d", "2 minutes", "-1s", "s", "1e3"])
    assert.throws(
      () => resolveOptions("dev", [`--block-time=${bad}`], {}),
      new RegExp(`^Error: --block-time must be a duration like 2s, 200ms, 10m or 24h, got ${bad}$`),
    );
  assert.throws(
    () => resolveOptions("serve", [], { FLASHNODE_IDLE_TIMEOUT: "5 weeks" }),
    /^Error: FLASHNODE_IDLE_TIMEOUT: --idle-timeout must be a duration like .*, got 5 weeks$/,
  );
  const file = join(tempDatadir("config"), "bad-duration.json");
  writeFileSync(file, JSON.stringify({ "fork-timeout": "soon" }));
  assert.throws(
    () => resolveOptions("follow", ["--config", file], {}),
    /^Error: config .*bad-duration\.json: --fork-timeout must be a duration .*, got soon$/,
  );
});

test("defaults are parsed as given values are: durations in ms, each command's own", () => {
  const dev = resolveOptions("dev", [], {}).values;
  assert.equal(dev["block-time"], 2000);
  assert.equal(dev["flashblock-interval"], 200);
  assert.equal(dev["nats-flashblock-retention"], 600_000);
  assert.equal(dev["request-timeout"], 30_000);
  assert.equal(dev["rpc-evmtimeout"], 5000);
  assert.equal(dev["fork-retry-backoff"], 1000);
  assert.deepEqual(dev.cors, ["*"]);
  assert.equal(dev["rpc-workers"], 1);
  assert.equal(resolveOptions("import", ["c.rlp"], {}).values["progress-interval"], 1000);
  assert.equal(resolveOptions("follow", [], {}).values["flashblocks-read-timeout"], 5000);
  assert.equal(resolveOptions("serve", [], {}).values.cors, undefined);
});

test("--rpc-workers defaults to one per core up to 4 on serve, replica and follow, 1 on dev", () => {
  const perCore = Math.min(availableParallelism(), 4);
  for (const command of ["serve", "replica", "follow"] as const)
    assert.equal(resolveOptions(command, [], {}).values["rpc-workers"], perCore, command);
  assert.equal(resolveOptions("dev", [], {}).values["rpc-workers"], 1);
  assert.equal(resolveOptions("follow", ["--rpc-workers", "3"], {}).values["rpc-workers"], 3);
});

test("every default of every command parses (a default is checked as a given value)", () => {
  const commands: readonly Command[] = ["dev", "serve", "import", "replica", "follow"];
  for (const command of commands) {
    const { values } = resolveOptions(command, [], {});
    for (const o of OPTIONS.filter((d) => d.commands.includes(command))) {
      const value = new Map<string, unknown>(Object.entries(values)).get(o.name);
      if (o.kind === "duration") assert.equal(typeof value, "number", `${command} --${o.name}`);
      if (o.default !== undefined) assert.notEqual(value, undefined, `${command} --${o.name}`);
    }
  }
});

test("a choice is one of its choices, whichever command and wherever it is given", () => {
  assert.equal(resolveOptions("follow", ["--hardfork", "prague"], {}).values.hardfork, "prague");
  assert.throws(
    () => resolveOptions("follow", ["--hardfork", "london"], {}),
    /^Error: --hardfork must be one of cancun, prague, osaka, got london$/,
  );
  assert.throws(
    () => resolveOptions("dev", [], { FLASHNODE_RECEIPTS: "never" }),
    /^Error: FLASHNODE_RECEIPTS: --receipts must be one of preconfirmed, sealed, got never$/,
  );
  assert.equal(resolveOptions("dev", ["--receipts", "sealed"], {}).values.receipts, "sealed");
});
