// Bad command-line input, as a new user types it: one line on stderr starting with
// "flashnode:", a non-zero exit, and nothing created on disk (or wiped, with --fresh).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { u64Key } from "../../src/store/keys.ts";
import { openKvEnv } from "../../src/store/lmdb.ts";
import { META_KEYS, SCHEMA_VERSION } from "../../src/store/tables.ts";
import { CHAIN_RLP, GENESIS, importFixtureChain, runCli, tempDatadir } from "../utils/fixtures.ts";

const dir = tempDatadir("cli");
const notJson = join(dir, "notjson.txt");
const notGenesis = join(dir, "object.json");
const otherGenesis = join(dir, "other-genesis.json");
writeFileSync(notJson, "this is not JSON\nat all\n");
writeFileSync(notGenesis, "{}");
// A valid genesis that is not the chain file's: its first block is refused by the import.
writeFileSync(
  otherGenesis,
  JSON.stringify({ ...JSON.parse(readFileSync(GENESIS, "utf8")), extraData: "0x1234" }),
);

/** Runs the CLI and asserts the one-line refusal; returns that line. */
function refused(args: string[], pattern: RegExp, exitCode = 1): string {
  const r = runCli(args);
  assert.equal(r.status, exitCode, `exit code of ${args.join(" ")}: ${r.stderr}`);
  const lines = r.stderr.split("\n").filter((l) => l !== "");
  assert.equal(lines.length, 1, `one line on stderr, got:\n${r.stderr}`);
  assert.match(lines[0]!, /^flashnode: /);
  assert.match(lines[0]!, pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
  return lines[0]!;
}

/** A datadir path that does not exist yet, and must not exist afterwards. */
function freshPath(label: string): string {
  return join(dir, `datadir-${label.replace(/\W+/g, "-")}`);
}

/** A TCP port held by this process for the suite, as another node would hold it. */
function holdPort(): { port: () => number } {
  let server: Server;
  let port = 0;
  before(async () => {
    server = createServer();
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    port = (server.address() as { port: number }).port;
  });
  after(() => {
    server.close();
  });
  return { port: () => port };
}

describe("dev refuses bad input before creating anything", () => {
  const busy = holdPort();
  // Arguments are built inside each test: the busy port is known only once `before` ran.
  const cases: Array<[string, () => string[], RegExp]> = [
    [
      "a port out of range",
      () => ["--port", "99999"],
      /^flashnode: --port must be a whole number from 0 to 65535, got 99999$/,
    ],
    ["an empty port", () => ["--port", ""], /--port needs a value \(got an empty string\)/],
    ["a negative port", () => ["--port", "-1"], /--port needs a value .*--port=-/],
    [
      "a host that is no address",
      () => ["--host", "bad host!"],
      /--host must be an IP address or a host name, got "bad host!"/,
    ],
    [
      "a host that is not local",
      () => ["--host", "192.0.2.1", "--port", "0"],
      /cannot listen on 192\.0\.2\.1: no such local address \(--host\)/,
    ],
    [
      "a genesis that is not JSON",
      () => ["--genesis", notJson],
      /^flashnode: --genesis .*notjson\.txt is not valid JSON: unexpected token/,
    ],
    [
      "a missing genesis",
      () => ["--genesis", join(dir, "absent.json")],
      /^flashnode: --genesis .*absent\.json: no such file$/,
    ],
    [
      "JSON that is not a genesis",
      () => ["--genesis", notGenesis],
      /--genesis .*object\.json: genesis: expected a geth genesis object/,
    ],
    [
      "a busy port",
      () => ["--port", String(busy.port())],
      /port \d+ on 127\.0\.0\.1 is already in use \(another node\?\).*choose another --port/,
    ],
    [
      "an unknown flag",
      () => ["--prot", "8545"],
      /unknown flag --prot for dev \(did you mean --port\?\)/,
    ],
    [
      "--fork, which is not the hardfork (anvil's --fork-url forks a chain)",
      () => ["--fork", "prague"],
      /^flashnode: --fork is not a flag: the hardfork is --hardfork \(cancun, prague, osaka\); to fork a live chain, --fork-url URL$/,
    ],
    [
      "an unknown hardfork",
      () => ["--hardfork", "london"],
      /--hardfork must be one of cancun, prague, osaka, got london/,
    ],
    ["a flag without its value", () => ["--port"], /--port needs a value/],
    ["a stray argument", () => ["8545"], /dev takes no arguments \(got 8545\)/],
    [
      "an unknown receipts mode",
      () => ["--receipts", "never"],
      /--receipts must be one of preconfirmed, sealed/,
    ],
    ["an API key too short", () => ["--api-key", "short"], /API keys are 8-128 characters/],
    [
      "limits for a key not given",
      () => ["--key-limits", '{"nokey-123":{"rate":1}}'],
      /--key-limits names "nokey-123", which is not a key given with --api-key/,
    ],
    [
      "a policy naming a misspelt method",
      () => [
        "--policy",
        '{"public":[{"method":"eth_getProff","action":"deny","selectors":["pending"]}]}',
      ],
      /^flashnode: policy\.public\[0\]\.method: unknown method "eth_getProff" \(did you mean eth_getProof\?\)$/,
    ],
    [
      "a config file that is not JSON",
      () => ["--config", notJson],
      /--config .*notjson\.txt is not valid JSON/,
    ],
    [
      "flashblocks slower than blocks",
      () => ["--block-time", "1s", "--flashblock-interval", "2s"],
      /--flashblock-interval must be at most --block-time \(or --automine \/ --block-time 0/,
    ],
    [
      "--state with --load-state",
      () => ["--state", notGenesis, "--load-state", notGenesis],
      /--state is --load-state and --dump-state in one: give it alone/,
    ],
    [
      "a state file that is not anvil's",
      () => ["--load-state", notGenesis],
      /--load-state .*object\.json: not an anvil state file: accounts: want an object/,
    ],
    [
      "a missing state file",
      () => ["--load-state", join(dir, "absent-state.json")],
      /--load-state .*absent-state\.json: ENOENT/,
    ],
  ];
  for (const [name, args, pattern] of cases) {
    test(name, () => {
      const datadir = freshPath(name);
      refused(["dev", "--datadir", datadir, ...args()], pattern);
      assert.equal(existsSync(datadir), false, "no datadir was created");
    });
  }

  test("a busy port leaves no parent directory of the datadir either", () => {
    const top = freshPath("nested");
    refused(
      ["dev", "--datadir", join(top, "a", "b"), "--port", String(busy.port())],
      /already in use/,
    );
    assert.equal(existsSync(top), false);
  });

  for (const [name, args, pattern] of [
    ["a bad genesis", () => ["--genesis", notJson], /not valid JSON/],
    ["a busy port", () => ["--port", String(busy.port())], /already in use/],
  ] as const) {
    test(`--fresh with ${name} leaves the existing datadir as it was`, () => {
      const datadir = freshPath(`fresh-${name}`);
      mkdirSync(datadir);
      writeFileSync(join(datadir, "keep.txt"), "mine");
      refused(["dev", "--fresh", "--datadir", datadir, ...args()], pattern);
      assert.deepEqual(readdirSync(datadir), ["keep.txt"]);
      assert.equal(readFileSync(join(datadir, "keep.txt"), "utf8"), "mine");
    });
  }

  test("a datadir of another archive schema: the one line that says what to do", async () => {
    const datadir = freshPath("old-schema");
    const env = openKvEnv(datadir);
    env.writeAtomically(() =>
      env.table("meta").put(Buffer.from(META_KEYS.schemaVersion), u64Key(SCHEMA_VERSION - 1)),
    );
    await env.close();
    refused(
      ["dev", "--port", "0", "--datadir", datadir],
      new RegExp(
        `has archive schema version ${SCHEMA_VERSION - 1}; this flashnode reads version ${SCHEMA_VERSION} \\(dev: start over with --fresh`,
      ),
    );
  });

  test("a full disk: refused, and the datadir made for it removed again", (t) => {
    const disk = tempDatadir("cli-full");
    if (spawnSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", disk]).status !== 0)
      return t.skip("cannot mount a small tmpfs here (needs root)");
    try {
      refused(
        ["dev", "--port", "0", "--datadir", join(disk, "node", "dev")],
        /the disk of datadir .* is full/,
      );
      assert.deepEqual(readdirSync(disk), []);
    } finally {
      spawnSync("umount", [disk]);
    }
  });
});

describe("serve refuses bad input", () => {
  const busy = holdPort();
  let archive = "";
  before(() => {
    archive = importFixtureChain("cli-serve");
  });

  test("a port out of range", () => {
    refused(
      ["serve", "--datadir", freshPath("serve-port"), "--port", "99999"],
      /^flashnode: --port must be a whole number from 0 to 65535, got 99999$/,
    );
  });

  test("a host that is no address", () => {
    refused(["serve", "--datadir", archive, "--host", "a b"], /--host must be an IP address/);
  });

  for (const workers of ["1", "2"]) {
    test(`a busy port, with --rpc-workers ${workers}`, () => {
      refused(
        ["serve", "--datadir", archive, "--rpc-workers", workers, "--port", String(busy.port())],
        /port \d+ on 127\.0\.0\.1 is already in use/,
      );
    });
  }

  test("no archive, and no datadir made for it", () => {
    const datadir = freshPath("serve-none");
    refused(["serve", "--datadir", datadir], /no archive in .*: run `flashnode import` first/);
    assert.equal(existsSync(datadir), false);
  });
});

describe("import checks its inputs before creating the datadir", () => {
  const cases: Array<[string, string[], RegExp]> = [
    [
      "a genesis that is not JSON",
      ["--genesis", notJson, CHAIN_RLP],
      /^flashnode: --genesis .*notjson\.txt is not valid JSON: unexpected token/,
    ],
    [
      "a missing genesis",
      ["--genesis", join(dir, "absent.json"), CHAIN_RLP],
      /^flashnode: --genesis .*absent\.json: no such file$/,
    ],
    [
      "a missing chain file",
      ["--genesis", GENESIS, join(dir, "absent.rlp")],
      /chain file .*absent\.rlp: no such file/,
    ],
    [
      "a chain file that is not RLP",
      ["--genesis", GENESIS, notJson],
      /chain file .*notjson\.txt is not valid RLP at byte 0/,
    ],
    [
      "a forkchoice that is not JSON",
      ["--genesis", GENESIS, "--forkchoice", notJson, CHAIN_RLP],
      /--forkchoice .*notjson\.txt is not valid JSON/,
    ],
    [
      "a missing forkchoice",
      ["--genesis", GENESIS, "--forkchoice", join(dir, "absent-fc.json"), CHAIN_RLP],
      /--forkchoice .*absent-fc\.json: no such file/,
    ],
    [
      "JSON that is not a forkchoice",
      ["--genesis", GENESIS, "--forkchoice", notGenesis, CHAIN_RLP],
      /--forkchoice .*object\.json: expected an engine_forkchoiceUpdated request/,
    ],
    ["a missing argument", [CHAIN_RLP], /missing --genesis: flashnode import --genesis/],
    ["two chain files", ["--genesis", GENESIS, CHAIN_RLP, CHAIN_RLP], /import takes only/],
    [
      "a first block the genesis does not lead to",
      ["--genesis", otherGenesis, CHAIN_RLP],
      /block 1 \(0x[0-9a-f]+\) rejected: parent hash/,
    ],
  ];
  for (const [name, args, pattern] of cases) {
    test(name, () => {
      const datadir = freshPath(`import-${name}`);
      refused(["import", "--datadir", datadir, ...args], pattern);
      assert.equal(existsSync(datadir), false, "no datadir was left");
    });
  }
});

describe("commands and help", () => {
  test("no command: the help on stderr and exit code 2", () => {
    const r = runCli([]);
    assert.equal(r.status, 2);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /Usage:/);
    assert.match(
      r.stderr,
      /flashnode: no command given \(dev, import, serve, replica or follow\)\n$/,
    );
  });

  test("an unknown command suggests the nearest", () => {
    refused(["serv"], /unknown command "serv" \(did you mean serve\?\); see flashnode --help$/);
    refused(["frobnicate"], /^flashnode: unknown command "frobnicate"; see flashnode --help$/);
  });

  test("a flag before the command says the command comes first", () => {
    refused(["--port", "1"], /--port before a command: the command comes first/);
  });

  test("serve without --datadir is one line", () => {
    refused(["serve"], /missing --datadir/);
  });

  test("the help says what dev does; dev's documents the API-key rule", () => {
    const r = runCli(["--help"]);
    assert.equal(r.status, 0);
    assert.doesNotMatch(r.stdout, /bundled sample chain/);
    assert.match(r.stdout, /^ {2}dev +a local chain/m);
    const dev = runCli(["dev", "--help"]);
    assert.equal(dev.status, 0);
    assert.match(dev.stdout, /8-128 characters/);
  });
});
