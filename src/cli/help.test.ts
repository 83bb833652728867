// `--help`: the top level is a short overview; each command's help lists its own options, each
// with that command's meaning and default (a serve user is never told dev's default datadir).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { test } from "node:test";
import { BIN } from "../../test/utils/fixtures.ts";
import { DEV_FORKS } from "../chain/devGenesis.ts";
import { RECEIPT_LOOKUPS } from "../node/plan.ts";
import { helpFor } from "./options.ts";
import { type Command, OPTIONS } from "./optionTable.ts";

const COMMANDS: readonly Command[] = ["dev", "import", "serve", "replica", "follow"];

function cli(...args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 60_000 });
}

/** The option names a help text lists, in order. */
function listed(help: string): string[] {
  return [...help.matchAll(/^ {2}--([a-z0-9-]+)/gm)].map((m) => m[1]!);
}

/** The line (and its continuation) of one option in a command's help. */
function entry(command: Command, name: string): string {
  const lines = helpFor(command).split("\n");
  const at = lines.findIndex((l) => l.startsWith(`  --${name} `));
  assert.ok(at >= 0, `${command} lists --${name}`);
  return lines.slice(at, at + 2).join("\n");
}

test("each command's help lists its own options, and only those", () => {
  for (const command of COMMANDS) {
    const own = OPTIONS.filter((o) => o.commands.includes(command)).map((o) => o.name);
    assert.deepEqual(listed(helpFor(command)), own, command);
  }
});

test("--datadir says each command's own default, and no other command's", () => {
  assert.match(entry("dev", "datadir"), /default \.\/\.flashnode\/dev/);
  assert.match(entry("follow", "datadir"), /default \.\/\.flashnode\/follow/);
  for (const command of ["serve", "replica", "import"] as const) {
    const text = entry(command, "datadir");
    assert.match(text, /required/, `${command}: ${text}`);
    assert.doesNotMatch(text, /\bdev\b|\.flashnode/, `${command}: ${text}`);
  }
  assert.doesNotMatch(entry("follow", "datadir"), /\bdev\b/);
});

test("an option shared by commands speaks, in each one's help, of that command only", () => {
  for (const command of COMMANDS) {
    const others = COMMANDS.filter((c) => c !== command);
    for (const name of [
      "datadir",
      "fresh",
      "hardfork",
      "fork-url",
      "nats",
      "rpc-workers",
      "cors",
      "rate-limit-loopback",
      "api-key",
    ]) {
      if (!OPTIONS.find((o) => o.name === name)?.commands.includes(command)) continue;
      const text = entry(command, name);
      // "dev: …", "serve and replica …", "dev default …" (a `flashnode import` is a datadir's origin).
      for (const other of others)
        assert.doesNotMatch(
          text,
          new RegExp(`(?<!flashnode )\\b${other}\\b(:|,| and | default)`),
          `${command} --${name}`,
        );
    }
  }
  // The machine's default, said where it is computed (the option table), for every command it is.
  for (const command of ["serve", "replica", "follow"] as const)
    assert.match(
      entry(command, "rpc-workers"),
      new RegExp(`\\(default one per core up to 4: ${Math.min(availableParallelism(), 4)} here\\)`),
      command,
    );
  assert.match(entry("dev", "rpc-workers"), /\(default 1\)/);
});

test("a choice's help lists the values the code takes (dev --hardfork, dev --receipts)", () => {
  assert.match(entry("dev", "hardfork"), new RegExp(`--hardfork +${DEV_FORKS.join(" \\| ")}: `));
  assert.match(entry("follow", "hardfork"), new RegExp(`${DEV_FORKS.join(" \\| ")}: `));
  assert.match(entry("dev", "receipts"), new RegExp(`${RECEIPT_LOOKUPS.join(" \\| ")}: `));
});

test("flashnode --help is a short overview: each command in one line, and how to get its help", () => {
  const top = cli("--help");
  assert.equal(top.status, 0, top.stderr);
  const lines = top.stdout.trimEnd().split("\n");
  assert.ok(lines.length <= 25, `${lines.length} lines:\n${top.stdout}`);
  for (const command of COMMANDS)
    assert.equal(
      lines.filter((l) => new RegExp(`^ {2}${command} {2,}\\S`).test(l)).length,
      1,
      `one line for ${command}:\n${top.stdout}`,
    );
  assert.match(top.stdout, /flashnode <command> --help/);
  assert.match(top.stdout, /flashnode help <command>/);
  assert.deepEqual(listed(top.stdout), [], "no option list at the top level");
  assert.equal(cli("help").stdout, top.stdout);
});

test("flashnode help <command> is that command's help, as <command> --help", () => {
  for (const command of ["dev", "serve"]) {
    const help = cli("help", command);
    assert.equal(help.status, 0, help.stderr);
    assert.equal(help.stdout, cli(command, "--help").stdout);
    assert.match(help.stdout, new RegExp(`^flashnode ${command} `));
  }
  const unknown = cli("help", "serv");
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /^flashnode: unknown command "serv" \(did you mean serve\?\)/);
});
