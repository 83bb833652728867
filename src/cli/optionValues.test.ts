import assert from "node:assert/strict";
import { test } from "node:test";
import { resolveOptions } from "./options.ts";
import { isListenHost } from "./optionValues.ts";

const refused = (command: "dev" | "serve" | "import", argv: string[], pattern: RegExp) =>
  assert.throws(() => resolveOptions(command, argv, {}), pattern);

test("listen hosts: IP literals and host names", () => {
  for (const ok of ["127.0.0.1", "0.0.0.0", "::1", "::", "localhost", "node-1.example.com"])
    assert.equal(isListenHost(ok), true, ok);
  for (const bad of ["bad host!", "[::1]", "-leading", "a..b", "http://x", "x:8545", ""])
    assert.equal(isListenHost(bad), false, bad);
});

test("port and host are checked when options are parsed", () => {
  refused("dev", ["--port", "99999"], /--port must be a whole number from 0 to 65535, got 99999/);
  refused("serve", ["--port", "1.5"], /--port must be a whole number from 0 to 65535, got 1\.5/);
  refused("serve", ["--host", "bad host!"], /--host must be an IP address or a host name/);
  refused("dev", ["--host", "[::1]"], /without brackets/);
  assert.throws(
    () => resolveOptions("dev", [], { FLASHNODE_PORT: "70000" }),
    /FLASHNODE_PORT: --port must be a whole number from 0 to 65535, got 70000/,
  );
  assert.equal(resolveOptions("dev", ["--host", "::1"], {}).values.host, "::1");
});

test("empty values, minimums and stray arguments are refused", () => {
  refused("dev", ["--port", ""], /--port needs a value \(got an empty string\)/);
  refused("dev", ["--datadir", ""], /--datadir needs a value/);
  refused("dev", ["--api-key", ""], /--api-key needs a value/);
  refused("dev", ["--chain-id", "0"], /--chain-id must be a whole number ≥ 1, got 0/);
  refused("dev", ["--gas-limit", "100"], /--gas-limit must be a whole number ≥ 21000/);
  refused("dev", ["extra"], /dev takes no arguments \(got extra\)/);
  refused("serve", ["a", "b"], /serve takes no arguments \(got a b\)/);
  refused("import", ["chain.rlp", "more.rlp"], /import takes only chain\.rlp \(got more\.rlp\)/);
  assert.deepEqual(resolveOptions("import", ["chain.rlp"], {}).positionals, ["chain.rlp"]);
});

test("parseArgs mistakes, each said plainly", () => {
  refused("dev", ["--port"], /^.*--port needs a value; see flashnode dev --help$/);
  refused(
    "dev",
    ["--port", "-1"],
    /--port needs a value \(one starting with - is written --port=-…\)/,
  );
  refused("dev", ["--port=-1"], /--port must be a whole number from 0 to 65535, got -1/);
  refused("dev", ["--fresh=yes"], /--fresh takes no value/);
  refused("dev", ["--prot", "1"], /unknown flag --prot for dev \(did you mean --port\?\)/);
  refused("serve", ["--fresh"], /unknown flag --fresh for serve; see flashnode serve --help/);
  refused(
    "dev",
    ["--policy", "{bad"],
    /--policy must be JSON: expected property name .* at line 1 column 2/,
  );
});
