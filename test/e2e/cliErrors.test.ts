// Bad command-line input, as a new user types it: one line on stderr starting with
// "flashnode:", a non-zero exit, and nothing created on disk (or wiped, with --fresh).
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { CHAIN_RLP, GENESIS, runCli, tempDatadir } from "../utils/fixtures.ts";

const dir = tempDatadir("cli");
const notJson = join(dir, "notjson.txt");
const notGenesis = join(dir, "object.json");
writeFileSync(notJson, "this is not JSON\nat all\n");
writeFileSync(notGenesis, "{}");

/** Runs the CLI and asserts the one-line refusal; returns that line. */
function refused(args: string[], pattern: RegExp, exitCode = 1): string {
  const r = runCli(args);
  assert.equal(r.status, exitCode, `exit code of ${args.join(" ")}: ${r.stderr}`);
  const lines = r.stderr.split("\n").filter((l) => l !== "");
  assert.equal(lines.length, 1, `one line on stderr, got:\n${r.stderr}`);
  assert.match(lines[0]!, /^flashnode: /);
  assert.match(lines[0]!, pattern);
  return lines[0]!;
}

/** A datadir path that does not exist yet, and must not exist afterwards. */
function freshPath(label: string): string {
  return join(dir, `datadir-${label}`);
}

describe("dev refuses bad input before creating anything", () => {
  let busy: Server;
  let busyPort = 0;
  before(async () => {
    busy = createServer();
    await new Promise<void>((ok) => busy.listen(0, "127.0.0.1", ok));
    busyPort = (busy.address() as { port: number }).port;
  });
  after(() => {
    busy.close();
  });

  // Arguments are built inside each test: the busy port is known only once `before` ran.
  const cases: Array<[string, () => string[], RegExp]> = [
    [
      "a port out of range",
      () => ["--port", "99999"],
      /--port must be a whole number from 0 to 65535, got 99999/,
    ],
    [
      "a genesis that is not JSON",
      () => ["--genesis", notJson],
      /--genesis .*notjson\.txt is not valid JSON/,
    ],
    [
      "a missing genesis",
      () => ["--genesis", join(dir, "absent.json")],
      /--genesis .*absent\.json: no such file/,
    ],
    [
      "JSON that is not a genesis",
      () => ["--genesis", notGenesis],
      /--genesis .*object\.json: genesis: /,
    ],
    [
      "a busy port",
      () => ["--port", String(busyPort)],
      /port \d+ on 127\.0\.0\.1 is already in use/,
    ],
    [
      "an unknown flag",
      () => ["--prot", "8545"],
      /unknown flag --prot for dev \(did you mean --port\?\)/,
    ],
    ["a flag without its value", () => ["--port"], /--port needs a value/],
    [
      "an unknown receipts mode",
      () => ["--receipts", "never"],
      /--receipts must be one of preconfirmed, sealed/,
    ],
  ];
  for (const [name, args, pattern] of cases) {
    test(name, () => {
      const datadir = freshPath(name.replace(/\W+/g, "-"));
      refused(["dev", "--datadir", datadir, ...args()], pattern);
      assert.equal(existsSync(datadir), false, "no datadir was created");
    });
  }

  test("--fresh with a bad genesis leaves the existing datadir as it was", () => {
    const datadir = freshPath("fresh");
    mkdirSync(datadir);
    writeFileSync(join(datadir, "keep.txt"), "mine");
    refused(["dev", "--fresh", "--datadir", datadir, "--genesis", notJson], /not valid JSON/);
    assert.deepEqual(readdirSync(datadir), ["keep.txt"]);
    assert.equal(readFileSync(join(datadir, "keep.txt"), "utf8"), "mine");
  });
});

describe("import checks its inputs before creating the datadir", () => {
  const cases: Array<[string, string[], RegExp]> = [
    ["a genesis that is not JSON", ["--genesis", notJson, CHAIN_RLP], /is not JSON/],
    [
      "a missing chain file",
      ["--genesis", GENESIS, join(dir, "absent.rlp")],
      /chain file .*absent\.rlp: no such file/,
    ],
    [
      "a forkchoice that is not JSON",
      ["--genesis", GENESIS, "--forkchoice", notJson, CHAIN_RLP],
      /--forkchoice .*notjson\.txt is not valid JSON/,
    ],
    ["a missing argument", [CHAIN_RLP], /missing --genesis: flashnode import --genesis/],
  ];
  for (const [name, args, pattern] of cases) {
    test(name, () => {
      const datadir = freshPath(`import-${name.replace(/\W+/g, "-")}`);
      refused(["import", "--datadir", datadir, ...args], pattern);
      assert.equal(existsSync(datadir), false, "no datadir was created");
    });
  }
});

describe("commands and help", () => {
  test("no command: the help on stderr and exit code 2", () => {
    const r = runCli([]);
    assert.equal(r.status, 2);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /Usage:/);
    assert.match(r.stderr, /flashnode: no command given \(dev, import or serve\)\n$/);
  });

  test("an unknown command suggests the nearest", () => {
    refused(["serv"], /unknown command "serv" \(did you mean serve\?\)/);
  });

  test("serve without --datadir is one line", () => {
    refused(["serve"], /missing --datadir/);
  });

  test("the help says what dev does and documents the API-key rule", () => {
    const r = runCli(["--help"]);
    assert.equal(r.status, 0);
    assert.doesNotMatch(r.stdout, /bundled sample chain/);
    assert.match(r.stdout, /flashnode dev .*local chain/);
    assert.match(r.stdout, /8-128 characters/);
  });
});
