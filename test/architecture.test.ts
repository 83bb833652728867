// The layer rule of docs/architecture.md, checked on every file of src/: imports point down the
// rank table below (a folder imports only folders of lower rank, or of equal rank one way only),
// and no two files import each other in a circle. The table is the one place the order is written.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** Rank of each folder under src/ (and of each file directly in src/): higher imports lower. */
const LAYERS: Readonly<Record<string, number>> = {
  cli: 9, // flags, commands, banners, process exit codes
  node: 8, // the one assembly of a role from parts; the readers cluster
  sequencer: 7, // producers and transports
  replica: 7,
  follow: 7,
  edge: 7,
  feed: 7,
  metrics: 7,
  ui: 7,
  rpc: 6, // the JSON-RPC methods
  exec: 6, // the EVM: executor, call/trace worker, block builder
  services: 5, // the contracts rpc and exec share, the JSON-RPC error classes
  upstream: 5, // a live chain over JSON-RPC: a fork's state and past, through the datadir's cache
  store: 4, // the LMDB archive
  pending: 4, // the pre-confirmed view, ChainUpdate
  chain: 3, // block/tx/receipt types and codecs, genesis, OP-stack chain config
  util: 1, // hex, crypto, errors base
  log: 1,
  "version.ts": 1,
};

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../src");

type Edge = { from: string; to: string; line: number };

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith(".ts") && !name.endsWith(".test.ts")) out.push(path);
  }
  return out;
}

/** Every relative module a file names: static imports and re-exports, `import("…")`, and
 *  `new URL("…", import.meta.url)` (worker entries). */
function specifiers(path: string): { spec: string; line: number }[] {
  const text = readFileSync(path, "utf8");
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: { spec: string; line: number }[] = [];
  const add = (node: ts.Node, lit: ts.Node | undefined) => {
    if (lit && ts.isStringLiteralLike(lit)) {
      const line = file.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      found.push({ spec: lit.text, line });
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      add(node, node.moduleSpecifier);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node, node.arguments[0]);
    } else if (
      ts.isNewExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === "URL" &&
      node.arguments?.[1]?.getText(file) === "import.meta.url"
    ) {
      add(node, node.arguments[0]);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found.filter((f) => f.spec.startsWith("."));
}

/** The layer a file of src/ belongs to: its top folder, or its own name at the top. */
function layerOf(file: string): string {
  const rel = relative(SRC, file).split(sep);
  return rel[0] ?? "";
}

function importGraph(): { files: string[]; edges: Edge[]; unresolved: string[] } {
  const files = sourceFiles(SRC).sort();
  const edges: Edge[] = [];
  const unresolved: string[] = [];
  for (const from of files) {
    for (const { spec, line } of specifiers(from)) {
      const to = resolve(dirname(from), spec);
      if (!to.startsWith(SRC + sep)) continue; // docs, package files: not a layer
      if (!to.endsWith(".ts")) continue; // static assets, the worker boot script
      if (!existsSync(to)) unresolved.push(`${relative(SRC, from)}:${line} -> ${spec}`);
      else edges.push({ from, to, line });
    }
  }
  return { files, edges, unresolved };
}

/** Tarjan's strongly connected components; the ones with more than one file are circles. */
function cycles(files: string[], edges: Edge[]): string[][] {
  const next = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const e of edges) next.get(e.from)?.push(e.to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let counter = 0;
  const connect = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      const selfLoop = scc.length === 1 && (next.get(v) ?? []).includes(v);
      if (scc.length > 1 || selfLoop) out.push(scc.map((f) => relative(SRC, f)).sort());
    }
  };
  for (const f of files) if (!index.has(f)) connect(f);
  return out;
}

describe("architecture: layers of src/", () => {
  const { files, edges, unresolved } = importGraph();

  it("finds the files and every module they name", () => {
    assert.ok(files.length > 100, `only ${files.length} files under ${SRC}`);
    assert.equal(
      unresolved.length,
      0,
      `imports of files that do not exist:\n${unresolved.join("\n")}`,
    );
  });

  it("gives every folder (and top-level file) of src/ a rank", () => {
    const unranked = readdirSync(SRC)
      .filter((name) => statSync(join(SRC, name)).isDirectory() || name.endsWith(".ts"))
      .filter((name) => LAYERS[name] === undefined);
    assert.equal(
      unranked.length,
      0,
      `no rank in LAYERS (test/architecture.test.ts): ${unranked.join(", ")}`,
    );
  });

  it("has no import from a folder to a higher one", () => {
    const upward: string[] = [];
    for (const e of edges) {
      const a = layerOf(e.from);
      const b = layerOf(e.to);
      if (a === b) continue;
      if ((LAYERS[b] ?? 0) > (LAYERS[a] ?? 0)) {
        upward.push(`${relative(SRC, e.from)}:${e.line} -> ${relative(SRC, e.to)}`);
      }
    }
    assert.equal(upward.length, 0, `${upward.length} upward imports:\n${upward.join("\n")}`);
  });

  it("has folders of one rank import each other one way only", () => {
    const ways = new Map<string, string[]>();
    for (const e of edges) {
      const a = layerOf(e.from);
      const b = layerOf(e.to);
      if (a === b || LAYERS[a] !== LAYERS[b]) continue;
      const key = `${a} -> ${b}`;
      ways.set(key, [...(ways.get(key) ?? []), `${relative(SRC, e.from)}:${e.line}`]);
    }
    const both: string[] = [];
    for (const [key, sites] of ways) {
      const [a, b] = key.split(" -> ");
      if (a! < b! && ways.has(`${b} -> ${a}`)) {
        both.push(`${key}: ${sites.join(", ")}; back: ${ways.get(`${b} -> ${a}`)!.join(", ")}`);
      }
    }
    assert.equal(both.length, 0, `folders importing each other:\n${both.join("\n")}`);
  });

  it("has no circle of imports between files", () => {
    const found = cycles(files, edges);
    const text = found.map((c) => c.join(" <-> ")).join("\n");
    assert.equal(found.length, 0, `${found.length} circles:\n${text}`);
  });
});
