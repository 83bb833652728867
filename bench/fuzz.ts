// Fuzz harness for the HTTP/WebSocket front of a running node: a seeded, weighted mix of broken
// and valid requests (cases in bench/fuzzCases.ts), every answer checked, the node watched for
// crashes, then correctness probes. See docs/fuzz.md.
// Run: npm run fuzz [-- --seconds 60 --requests 10000 --concurrency 8 --seed N --url URL]
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Agent, type IncomingHttpHeaders, request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { keccak256 } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import WebSocket from "ws";
import { devAccounts } from "../src/chain/devGenesis.ts";
import {
  CASE_KINDS,
  type CaseEnv,
  type CaseKind,
  type FuzzCase,
  generateCase,
  type HttpCase,
  type RawCase,
  Rng,
  type WsCase,
} from "./fuzzCases.ts";

const ROOT = resolve(import.meta.dirname, "..");
const { values: opts } = parseArgs({
  options: {
    seconds: { type: "string", default: "60" },
    requests: { type: "string", default: "10000" },
    concurrency: { type: "string", default: "8" },
    seed: { type: "string" },
    url: { type: "string" },
    "dedicated-url": { type: "string" },
    "max-seconds": { type: "string", default: "300" },
    replay: { type: "string" },
    exclude: { type: "string" },
    "node-rate-limit": { type: "string", default: "0" },
  },
});
const SECONDS = Number(opts.seconds);
const MIN_REQUESTS = Number(opts.requests);
const CONCURRENCY = Math.max(1, Number(opts.concurrency));
const MAX_SECONDS = Number(opts["max-seconds"]);
const SEED = opts.seed === undefined ? Date.now() % 1_000_000_000 : Number(opts.seed);
/** kind or kind/variant-prefix: such cases are generated (indices stay stable) but not sent. */
const EXCLUDE = (opts.exclude ?? "")
  .split(",")
  .map((s) => s.trim())
  .filter((s) => s !== "");
const excluded = (c: FuzzCase) =>
  EXCLUDE.some((e) => e === c.kind || `${c.kind}/${c.variant}`.startsWith(e));
/** A normal request that takes longer than this is a hang (the node's own limit is 30 s). */
const REQUEST_TIMEOUT_MS = 45_000;
/** Bytes of an answer kept (the node caps batch answers at 25 MB); a longer one fails the JSON check. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
const SUSPICIOUS =
  /Cannot read|is not a function|is not defined|is not iterable|Maximum call stack|Invalid array length|RangeError|TypeError|SyntaxError|Unexpected token|\bundefined\b|\[object |NaN/;

for (const [name, v] of [
  ["seconds", SECONDS],
  ["requests", MIN_REQUESTS],
  ["concurrency", CONCURRENCY],
  ["seed", SEED],
  ["max-seconds", MAX_SECONDS],
] as const) {
  if (!Number.isFinite(v) || v < 0) {
    console.error(`--${name} must be a non-negative number`);
    process.exit(2);
  }
}

// ---------------------------------------------------------------------------------------------
// Outcomes and the checks.

type ProblemKind = "5xx" | "status" | "malformed" | "unanswered" | "connection";
type Problem = { readonly what: ProblemKind; readonly detail: string; readonly response?: string };
type Outcome = {
  statuses: number[];
  problems: Problem[];
  /** An expected connection outcome: a cut, a hang, a socket the server closed. */
  connEvent?: string;
  errors: { code: number; message: string }[];
};

const newOutcome = (): Outcome => ({ statuses: [], problems: [], errors: [] });

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const RESPONSE_KEYS = new Set(["jsonrpc", "id", "result", "error"]);

/** Why `v` is not a JSON-RPC 2.0 response, or undefined if it is one. */
function responseProblem(v: unknown, errors: Outcome["errors"]): string | undefined {
  if (!isObject(v)) return "not an object";
  if (v.jsonrpc !== "2.0") return 'jsonrpc is not "2.0"';
  if (!("id" in v)) return "no id";
  const id = v.id;
  // geth echoes any id that is not an object or array (booleans included).
  if (typeof id === "object" && id !== null) return "id is an object or array";
  const hasResult = "result" in v;
  const hasError = "error" in v;
  if (hasResult === hasError)
    return hasResult ? "both result and error" : "neither result nor error";
  for (const k of Object.keys(v)) if (!RESPONSE_KEYS.has(k)) return `unexpected key ${k}`;
  if (hasError) {
    const e = v.error;
    if (!isObject(e)) return "error is not an object";
    if (typeof e.code !== "number" || !Number.isInteger(e.code))
      return "error.code is not an integer";
    if (typeof e.message !== "string") return "error.message is not a string";
    errors.push({ code: e.code, message: e.message });
  }
  return undefined;
}

/** Checks an answer body: one response, or a non-empty array of them (a WS push is allowed). */
function checkRpcBody(
  text: string,
  o: Outcome,
  expectId: { readonly value: unknown } | undefined,
  allowPush = false,
): void {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    o.problems.push({ what: "malformed", detail: "body is not JSON", response: text });
    return;
  }
  if (allowPush && isObject(v) && v.method === "eth_subscription" && !("id" in v)) return;
  const items = Array.isArray(v) ? v : [v];
  if (Array.isArray(v) && v.length === 0) {
    o.problems.push({ what: "malformed", detail: "empty array answer", response: text });
    return;
  }
  for (const item of items) {
    const why = responseProblem(item, o.errors);
    if (why !== undefined) {
      o.problems.push({ what: "malformed", detail: why, response: text });
      return;
    }
  }
  if (expectId !== undefined && !Array.isArray(v) && isObject(v) && v.id !== expectId.value) {
    o.problems.push({
      what: "malformed",
      detail: `id ${JSON.stringify(v.id)} instead of ${JSON.stringify(expectId.value)}`,
      response: text,
    });
  }
}

/** The status and body checks shared by every HTTP answer. */
function checkHttp(
  c: HttpCase | RawCase,
  status: number,
  headers: IncomingHttpHeaders | Map<string, string>,
  body: Buffer,
  o: Outcome,
): void {
  o.statuses.push(status);
  const text = () => body.toString("utf8");
  if (status >= 500) {
    o.problems.push({ what: "5xx", detail: `HTTP ${status}`, response: text() });
    return;
  }
  if (c.expect.length > 0 && !c.expect.includes(status)) {
    o.problems.push({
      what: "status",
      detail: `HTTP ${status}, expected ${c.expect.join("|")}`,
      response: text(),
    });
  }
  if (!c.jsonrpc || body.length === 0) return;
  const type =
    headers instanceof Map ? (headers.get("content-type") ?? "") : (headers["content-type"] ?? "");
  // 200s are always JSON-RPC; refusals (401/403/429) are when they say they are JSON.
  if (status === 200 || (status >= 400 && type.includes("json"))) {
    checkRpcBody(text(), o, c.transport === "http" && status === 200 ? c.expectId : undefined);
  }
}

// ---------------------------------------------------------------------------------------------
// Transports.

let target: URL;
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function runHttp(c: HttpCase): Promise<Outcome> {
  const o = newOutcome();
  const headers: Record<string, string> = { ...c.headers };
  if (c.chunked) headers["transfer-encoding"] = "chunked";
  else if (c.body.length > 0 || c.method === "POST")
    headers["content-length"] = String(c.body.length);
  return new Promise((done) => {
    let finished = false;
    const finish = () => {
      if (!finished) {
        finished = true;
        clearTimeout(timer);
        done(o);
      }
    };
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        method: c.method,
        path: c.path,
        headers,
        // A request the server may cut gets its own connection, not a pooled one.
        agent: c.mayDrop ? false : agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_RESPONSE_BYTES) chunks.push(chunk);
        });
        res.on("end", () => {
          checkHttp(c, res.statusCode ?? 0, res.headers, Buffer.concat(chunks), o);
          finish();
        });
        res.on("error", (e) => {
          if (!c.mayDrop) o.problems.push({ what: "connection", detail: `response: ${e.message}` });
          else o.connEvent = "cut";
          finish();
        });
      },
    );
    const timer = setTimeout(() => {
      o.problems.push({ what: "unanswered", detail: `no answer in ${REQUEST_TIMEOUT_MS} ms` });
      req.destroy();
      finish();
    }, REQUEST_TIMEOUT_MS);
    req.on("error", (e: NodeJS.ErrnoException) => {
      if (finished) return;
      if (c.mayDrop) o.connEvent = e.code ?? "error";
      else o.problems.push({ what: "connection", detail: `${e.code ?? ""} ${e.message}` });
      finish();
    });
    req.end(c.body);
  });
}

type RawResponse = { status: number; headers: Map<string, string>; body: Buffer };

/** Parses complete HTTP/1.1 answers from `buf`; stops at a 101 (the rest is WebSocket). */
function parseResponses(buf: Buffer, closed: boolean): { list: RawResponse[]; upgraded: boolean } {
  const list: RawResponse[] = [];
  let pos = 0;
  for (;;) {
    const end = buf.indexOf("\r\n\r\n", pos);
    if (end < 0) return { list, upgraded: false };
    const lines = buf.subarray(pos, end).toString("latin1").split("\r\n");
    const m = /^HTTP\/\d\.\d (\d{3})/.exec(lines[0] ?? "");
    if (m === null) return { list, upgraded: false };
    const status = Number(m[1]);
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      if (colon > 0)
        headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    let at = end + 4;
    if (status === 101) {
      list.push({ status, headers, body: Buffer.alloc(0) });
      return { list, upgraded: true };
    }
    if (status >= 100 && status < 200) {
      pos = at;
      continue;
    }
    let body: Buffer;
    const length = headers.get("content-length");
    if (length !== undefined) {
      const n = Number(length);
      if (buf.length < at + n) return { list, upgraded: false };
      body = buf.subarray(at, at + n);
      at += n;
    } else if (headers.get("transfer-encoding")?.toLowerCase() === "chunked") {
      const parts: Buffer[] = [];
      for (;;) {
        const eol = buf.indexOf("\r\n", at);
        if (eol < 0) return { list, upgraded: false };
        const size = Number.parseInt(buf.subarray(at, eol).toString("latin1"), 16);
        if (!Number.isFinite(size)) return { list, upgraded: false };
        if (buf.length < eol + 2 + size + 2) return { list, upgraded: false };
        parts.push(buf.subarray(eol + 2, eol + 2 + size));
        at = eol + 2 + size + 2;
        if (size === 0) break;
      }
      body = Buffer.concat(parts);
    } else {
      // No length: the body runs to the end of the connection.
      if (!closed) return { list, upgraded: false };
      body = buf.subarray(at);
      at = buf.length;
    }
    list.push({ status, headers, body });
    pos = at;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function runRaw(c: RawCase): Promise<Outcome> {
  const o = newOutcome();
  return new Promise((done) => {
    const socket = connect({ host: target.hostname, port: Number(target.port) });
    const chunks: Buffer[] = [];
    let closed = false;
    let finished = false;
    let parsed = { list: [] as RawResponse[], upgraded: false };
    let wake: (() => void) | undefined;
    const reparse = () => {
      parsed = parseResponses(Buffer.concat(chunks), closed);
      wake?.();
    };
    socket.on("data", (d: Buffer) => {
      chunks.push(d);
      reparse();
    });
    socket.on("close", () => {
      closed = true;
      reparse();
    });
    socket.on("error", (e: NodeJS.ErrnoException) => {
      o.connEvent = e.code ?? "error";
    });
    const waitFor = (pred: () => boolean, ms: number) =>
      new Promise<void>((r) => {
        const t = setTimeout(() => {
          wake = undefined;
          r();
        }, ms);
        wake = () => {
          if (pred()) {
            clearTimeout(t);
            wake = undefined;
            r();
          }
        };
        wake();
      });
    const finish = () => {
      if (finished) return;
      finished = true;
      socket.destroy();
      for (const r of parsed.list) checkHttp(c, r.status, r.headers, r.body, o);
      done(o);
    };
    let connected = false;
    socket.once("connect", async () => {
      connected = true;
      for (const step of c.steps) {
        if (step.delayMs > 0) await sleep(step.delayMs);
        if (closed) break;
        socket.write(step.data);
      }
      if (c.after === "close") {
        if (c.holdMs > 0) await sleep(c.holdMs);
        o.connEvent = "cut by client";
      } else if (c.after === "hang") {
        await waitFor(() => closed, c.holdMs);
        o.connEvent = closed ? "closed by server" : "held then cut";
      } else {
        const want = c.responses;
        await waitFor(
          () => closed || parsed.upgraded || (want > 0 && parsed.list.length >= want),
          want > 0 ? 10_000 : 1_500,
        );
        // After a 101, give the server a moment to react to the garbage frames.
        if (parsed.upgraded) await waitFor(() => closed, 1_000);
        if (want > 0 && parsed.list.length < want && !parsed.upgraded) {
          o.problems.push({
            what: "unanswered",
            detail: `${parsed.list.length}/${want} answers${closed ? ", connection closed" : " in 10 s"}`,
          });
        } else if (closed && !parsed.upgraded) o.connEvent ??= "closed by server";
      }
      finish();
    });
    socket.once("error", () => {
      if (connected) return;
      o.problems.push({ what: "connection", detail: "connect failed" });
      finish();
    });
  });
}

function runWs(c: WsCase): Promise<Outcome> {
  const o = newOutcome();
  const sentinelId = `fuzz-sentinel-${c.index}`;
  const expectsClose = c.variant === "invalid-utf8" || c.variant === "oversized";
  return new Promise((done) => {
    let finished = false;
    let closing = false;
    let sentinelSeen = false;
    let onSentinel: (() => void) | undefined;
    const ws = new WebSocket(new URL(c.path, target), {
      perMessageDeflate: false,
      handshakeTimeout: 10_000,
      maxPayload: MAX_RESPONSE_BYTES,
    });
    const finish = () => {
      if (finished) return;
      finished = true;
      ws.terminate();
      done(o);
    };
    ws.on("unexpected-response", (_req, res) => {
      const status = res.statusCode ?? 0;
      o.statuses.push(status);
      const ok = status === 429 && c.path === "/";
      if (status >= 500) o.problems.push({ what: "5xx", detail: `upgrade: HTTP ${status}` });
      else if (!ok)
        o.problems.push({ what: "status", detail: `upgrade: HTTP ${status}, expected 101` });
      finish();
    });
    ws.on("error", (e) => {
      if (finished) return;
      if (expectsClose) o.connEvent = "closed by server";
      else o.problems.push({ what: "connection", detail: `websocket: ${e.message}` });
      finish();
    });
    ws.on("close", (code) => {
      if (!finished && !closing && !expectsClose) {
        o.problems.push({ what: "connection", detail: `websocket closed by server (${code})` });
      } else if (!closing) o.connEvent ??= `closed by server (${code})`;
      onSentinel?.();
      finish();
    });
    ws.on("message", (data, isBinary) => {
      const text = Buffer.isBuffer(data)
        ? data.toString("utf8")
        : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString("utf8");
      if (isBinary && !c.stream) {
        o.problems.push({ what: "malformed", detail: "binary frame on JSON-RPC socket" });
        return;
      }
      if (c.stream) {
        let v: unknown;
        try {
          v = JSON.parse(text);
        } catch {
          v = undefined;
        }
        if (!isObject(v) || typeof v.index !== "number")
          o.problems.push({
            what: "malformed",
            detail: "flashblock is not an object with an index",
            response: text,
          });
        return;
      }
      if (text.includes(sentinelId)) {
        sentinelSeen = true;
        onSentinel?.();
      }
      checkRpcBody(text, o, undefined, true);
    });
    ws.on("open", async () => {
      o.statuses.push(101);
      for (const f of c.frames) {
        if (ws.readyState !== WebSocket.OPEN) break;
        ws.send(f.data, { binary: f.binary });
        await sleep(0);
      }
      if (c.sentinel && ws.readyState === WebSocket.OPEN) {
        ws.send(JSON.stringify({ jsonrpc: "2.0", id: sentinelId, method: "eth_chainId" }));
        await new Promise<void>((r) => {
          const t = setTimeout(r, 15_000);
          onSentinel = () => {
            clearTimeout(t);
            r();
          };
          if (sentinelSeen) onSentinel();
        });
        if (!sentinelSeen && !expectsClose && !finished)
          o.problems.push({
            what: "unanswered",
            detail: "no answer to eth_chainId after the frames",
          });
      }
      await sleep(c.listenMs);
      closing = true;
      if (!finished) ws.close(1000);
      await sleep(50);
      finish();
    });
  });
}

function runCase(c: FuzzCase): Promise<Outcome> {
  if (c.transport === "http") return runHttp(c);
  if (c.transport === "raw") return runRaw(c);
  return runWs(c);
}

// ---------------------------------------------------------------------------------------------
// The node under test.

type Child = { proc: ChildProcess; dir: string; log: string[]; exited?: string };
let child: Child | undefined;
let stopping = false;
/** Cases being run, by index; what was in flight when the node died is the suspect list. */
const inflight = new Map<number, FuzzCase>();
let crashInflight: FuzzCase[] | undefined;

function pushLog(log: string[], chunk: Buffer): void {
  for (const line of chunk.toString("utf8").split("\n")) if (line.trim() !== "") log.push(line);
  if (log.length > 60) log.splice(0, log.length - 60);
}

async function startChild(): Promise<{ url: string; dedicated: string | undefined }> {
  const dir = mkdtempSync(join(tmpdir(), "flashnode-fuzz-"));
  const proc = spawn(
    process.execPath,
    [join(ROOT, "bin/flashnode.js"), "dev", "--datadir", dir, "--host", "127.0.0.1", "--port", "0"],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      // Public rate limiting would answer most of the fuzz with 429 (0 = unlimited); an env
      // variable, so a node without that setting still starts.
      env: { ...process.env, FLASHNODE_RATE_LIMIT: opts["node-rate-limit"] },
    },
  );
  const c: Child = { proc, dir, log: [] };
  child = c;
  let out = "";
  proc.stderr?.on("data", (d: Buffer) => pushLog(c.log, d));
  proc.stdout?.on("data", (d: Buffer) => {
    out += d.toString("utf8");
    pushLog(c.log, d);
  });
  proc.on("exit", (code, signal) => {
    c.exited = signal !== null ? `signal ${signal}` : `exit code ${code}`;
    if (!stopping) crashInflight = [...inflight.values()];
  });
  const deadline = Date.now() + 120_000;
  for (;;) {
    const m = /JSON-RPC \(public\):\s+(\S+)/.exec(out);
    if (m !== null) {
      await sleep(300); // the rest of the banner (the dedicated URL) is in the same write
      const d = /JSON-RPC \(dedicated\):\s+(http:\/\/\S+\/rpc\/[\w-]+)(?:\s|$)/.exec(out);
      return { url: m[1]!, dedicated: d?.[1] };
    }
    if (c.exited !== undefined) throw new Error(`flashnode dev ${c.exited}:\n${c.log.join("\n")}`);
    if (Date.now() > deadline) throw new Error("flashnode dev did not print its URL in 120 s");
    await sleep(50);
  }
}

async function stopChild(): Promise<void> {
  const c = child;
  if (c === undefined) return;
  stopping = true;
  if (c.exited === undefined) {
    c.proc.kill("SIGTERM");
    const deadline = Date.now() + 15_000;
    while (c.exited === undefined && Date.now() < deadline) await sleep(50);
    if (c.exited === undefined) c.proc.kill("SIGKILL");
  }
  rmSync(c.dir, { recursive: true, force: true });
}

/**
 * After a crash: start a fresh node and replay the suspects one at a time (quick requests
 * first), to name the case that kills the node on its own.
 */
async function confirmCrash(
  suspects: readonly FuzzCase[],
): Promise<{ text: string; culprit?: number }> {
  if (suspects.length === 0) return { text: "no case was in flight" };
  if (child !== undefined) rmSync(child.dir, { recursive: true, force: true });
  stopping = false;
  crashInflight = undefined;
  const started = await startChild();
  target = only127(started.url, "the node URL");
  const { env } = await detectEnv(started.dedicated);
  const quickFirst = [...suspects].sort(
    (a, b) => Number(a.transport !== "http") - Number(b.transport !== "http"),
  );
  const deadline = Date.now() + 120_000;
  for (const s of quickFirst) {
    if (Date.now() > deadline) return { text: "not found within 120 s" };
    const c = generateCase(SEED, s.index, env); // the same case with this node's key
    await runCase(c);
    const until = Date.now() + 500;
    while (child!.exited === undefined && Date.now() < until) await sleep(20);
    if (child!.exited !== undefined)
      return {
        text: `case #${c.index} alone crashes it (${child!.exited}): ${describe(c)}`,
        culprit: c.index,
      };
  }
  return { text: "no single suspect crashes it on its own" };
}

/** Resident memory of the child in MiB (Linux), for the summary. */
function childRssMiB(): number | undefined {
  const pid = child?.proc.pid;
  if (pid === undefined || child?.exited !== undefined) return undefined;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m === null ? undefined : Math.round(Number(m[1]) / 1024);
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Plain JSON-RPC for setup and probes.

type RpcAnswer = { status: number; json: unknown };

function post(path: string, body: string): Promise<RpcAnswer> {
  return new Promise((ok, fail) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        method: "POST",
        path,
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (text += d));
        res.on("end", () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = text;
          }
          ok({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error("timeout")));
    req.on("error", fail);
    req.end(body);
  });
}

async function rpc(path: string, method: string, params: unknown[]): Promise<unknown> {
  const a = await post(path, JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }));
  if (a.status !== 200 || !isObject(a.json))
    throw new Error(`${method}: HTTP ${a.status} ${JSON.stringify(a.json)}`);
  if (a.json.error !== undefined) throw new Error(`${method}: ${JSON.stringify(a.json.error)}`);
  return a.json.result;
}

function only127(u: string, what: string): URL {
  const url = new URL(u);
  if (url.hostname !== "127.0.0.1") {
    console.error(`${what} must be a 127.0.0.1 URL, got ${u}`);
    process.exit(2);
  }
  return url;
}

// ---------------------------------------------------------------------------------------------
// Probes.

type Probe = { name: string; ok: boolean; detail: string };

async function probe(name: string, run: () => Promise<string>): Promise<Probe> {
  try {
    return { name, ok: true, detail: await run() };
  } catch (e) {
    return { name, ok: false, detail: e instanceof Error ? e.message : String(e) };
  }
}

const hexNum = (v: unknown, what: string): bigint => {
  if (typeof v !== "string" || !/^0x(0|[1-9a-f][0-9a-f]*)$/.test(v))
    throw new Error(`${what}: bad quantity ${JSON.stringify(v)}`);
  return BigInt(v);
};

async function runProbes(env: CaseEnv): Promise<Probe[]> {
  const probes: Probe[] = [];
  let chainId = 0n;
  probes.push(
    await probe("eth_chainId", async () => {
      chainId = hexNum(await rpc("/", "eth_chainId", []), "eth_chainId");
      if (child !== undefined && chainId !== 31337n)
        throw new Error(`chain id ${chainId}, expected 31337`);
      return `${chainId}`;
    }),
  );
  probes.push(
    await probe("eth_blockNumber increases", async () => {
      const first = hexNum(await rpc("/", "eth_blockNumber", []), "eth_blockNumber");
      const deadline = Date.now() + 10_000;
      for (;;) {
        const now = hexNum(await rpc("/", "eth_blockNumber", []), "eth_blockNumber");
        if (now > first) return `${first} → ${now}`;
        if (Date.now() > deadline) throw new Error(`stuck at ${first} for 10 s`);
        await sleep(100);
      }
    }),
  );
  const accounts = devAccounts(10);
  const sender = accounts[9]!;
  probes.push(
    await probe("eth_getBalance of a dev account", async () => {
      const b = hexNum(
        await rpc("/", "eth_getBalance", [accounts[0]!.address, "latest"]),
        "balance",
      );
      if (b === 0n) throw new Error(`${accounts[0]!.address} has no balance`);
      return `${accounts[0]!.address}: ${b / 10n ** 18n} ETH`;
    }),
  );
  const via = env.dedicatedPath ?? "/";
  probes.push(
    await probe(
      env.dedicatedPath === undefined
        ? "signed transfer → eth_getTransactionReceipt (POST /)"
        : 'signed transfer → eth_getBlockReceipts("pending") (dedicated)',
      async () => {
        const to = `0x${new Rng(SEED, 0x7fffffff).hex(20)}` as const;
        const value = 1_000_000_007n;
        const nonce = hexNum(
          await rpc(via, "eth_getTransactionCount", [sender.address, "pending"]),
          "nonce",
        );
        const block = await rpc(via, "eth_getBlockByNumber", ["pending", false]);
        const baseFee = isObject(block)
          ? hexNum(block.baseFeePerGas, "baseFeePerGas")
          : 1_000_000_000n;
        const tip = 1_000_000_000n;
        const raw = await privateKeyToAccount(sender.privateKey as `0x${string}`).signTransaction({
          chainId: Number(chainId),
          type: "eip1559",
          to,
          value,
          nonce: Number(nonce),
          gas: 21_000n,
          maxFeePerGas: baseFee * 2n + tip,
          maxPriorityFeePerGas: tip,
        });
        const hash = await rpc(via, "eth_sendRawTransaction", [raw]);
        if (hash !== keccak256(raw))
          throw new Error(`eth_sendRawTransaction answered ${JSON.stringify(hash)}`);
        const started = Date.now();
        let receipt: Record<string, unknown> | undefined;
        let where = "";
        while (receipt === undefined && Date.now() - started < 10_000) {
          if (env.dedicatedPath !== undefined) {
            const list = await rpc(via, "eth_getBlockReceipts", ["pending"]);
            if (Array.isArray(list))
              receipt = list.find((r) => isObject(r) && r.transactionHash === hash);
            where = "pending receipts";
          } else {
            const r = await rpc("/", "eth_getTransactionReceipt", [hash]);
            if (isObject(r)) receipt = r;
            where = "eth_getTransactionReceipt";
          }
          if (receipt === undefined) await sleep(20);
        }
        if (receipt === undefined) throw new Error(`${hash} not in ${where} after 10 s`);
        if (receipt.status !== "0x1") throw new Error(`receipt status ${String(receipt.status)}`);
        if (
          String(receipt.from).toLowerCase() !== sender.address.toLowerCase() ||
          receipt.to !== to
        )
          throw new Error(`receipt from/to ${String(receipt.from)} → ${String(receipt.to)}`);
        const got = hexNum(await rpc(via, "eth_getBalance", [to, "pending"]), "balance");
        if (got !== value) throw new Error(`recipient balance ${got}, expected ${value}`);
        return `${hash.slice(0, 18)}… in ${where} after ${Date.now() - started} ms; recipient balance ${got} wei`;
      },
    ),
  );
  probes.push(
    await probe("WebSocket eth_chainId", async () => {
      const ws = new WebSocket(new URL("/", target), { perMessageDeflate: false });
      try {
        const answer = await new Promise<string>((ok, fail) => {
          const t = setTimeout(() => fail(new Error("no answer in 10 s")), 10_000);
          ws.on("error", fail);
          ws.on("open", () => ws.send('{"jsonrpc":"2.0","id":7,"method":"eth_chainId"}'));
          ws.on("message", (d: Buffer) => {
            clearTimeout(t);
            ok(d.toString("utf8"));
          });
        });
        const v = JSON.parse(answer) as unknown;
        if (!isObject(v) || v.id !== 7 || hexNum(v.result, "result") !== chainId)
          throw new Error(answer);
        return answer;
      } finally {
        ws.terminate();
      }
    }),
  );
  if (child !== undefined)
    probes.push({
      name: "node process alive",
      ok: child.exited === undefined,
      detail: child.exited ?? `pid ${child.proc.pid}`,
    });
  return probes;
}

// ---------------------------------------------------------------------------------------------
// Statistics and reports.

type KindStats = { sent: number; statuses: Map<number, number>; conn: number; failed: number };
type Failure = { c: FuzzCase; problem: Problem };

const byKind = new Map<CaseKind, KindStats>(
  CASE_KINDS.map((k) => [k, { sent: 0, statuses: new Map(), conn: 0, failed: 0 }]),
);
const statusCounts = new Map<number, number>();
const problemCounts = new Map<ProblemKind, number>();
const errorCodes = new Map<number, number>();
/** Internal-looking error messages → count and the first case that got it. */
const suspicious = new Map<string, { n: number; index: number }>();
const failures: Failure[] = [];
let sent = 0;
let connEvents = 0;

const inc = <K>(m: Map<K, number>, k: K, n = 1) => m.set(k, (m.get(k) ?? 0) + n);

function record(c: FuzzCase, o: Outcome): void {
  sent++;
  const k = byKind.get(c.kind)!;
  k.sent++;
  for (const s of o.statuses) {
    inc(statusCounts, s);
    inc(k.statuses, s);
  }
  if (o.connEvent !== undefined) {
    connEvents++;
    k.conn++;
  }
  if (o.problems.length > 0) k.failed++;
  for (const p of o.problems) {
    inc(problemCounts, p.what);
    if (failures.length < 200) failures.push({ c, problem: p });
  }
  let sentText: string | undefined;
  for (const e of o.errors) {
    inc(errorCodes, e.code);
    const m = SUSPICIOUS.exec(e.message);
    // "undefined" or "NaN" quoted back from the request itself is no sign of a bug.
    sentText ??= m === null ? undefined : requestText(c);
    if (e.code === -32603 || (m !== null && !sentText!.includes(m[0]))) {
      const key = `${e.code} ${e.message.slice(0, 160)}`;
      const seen = suspicious.get(key);
      if (seen !== undefined) seen.n++;
      else if (suspicious.size < 50) suspicious.set(key, { n: 1, index: c.index });
    }
  }
}

function requestText(c: FuzzCase): string {
  const bufs =
    c.transport === "http"
      ? [c.body]
      : c.transport === "raw"
        ? c.steps.map((s) => s.data)
        : c.frames.map((f) => f.data);
  return Buffer.concat(bufs).toString("utf8");
}

function preview(b: Buffer | string, n = 240): string {
  const s = typeof b === "string" ? b : b.toString("latin1");
  const cut = s.length > n ? `${s.slice(0, n)}… (${s.length} bytes)` : s;
  return JSON.stringify(cut);
}

function describe(c: FuzzCase): string {
  const head = `#${c.index} ${c.kind}/${c.variant}`;
  if (c.transport === "http") {
    const h = Object.entries(c.headers)
      .map(([k, v]) => `${k}: ${v}`)
      .join("; ");
    return `${head} ${c.method} ${preview(c.path, 80)}${h === "" ? "" : ` [${h}]`}${c.chunked ? " chunked" : ""} body ${preview(c.body)}`;
  }
  if (c.transport === "raw") {
    const all = Buffer.concat(c.steps.map((s) => s.data));
    return `${head} raw ${c.steps.length} writes, then ${c.after}: ${preview(all)}`;
  }
  return `${head} ws ${c.path} ${c.frames.length} frames: ${c.frames.map((f) => preview(f.data, 80)).join(", ")}`;
}

const table = (rows: string[][]): string => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
        .join("  "),
    )
    .join("\n");
};

const fmtStatuses = (m: Map<number, number>) =>
  [...m.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([s, n]) => `${s}×${n}`)
    .join(" ");

// ---------------------------------------------------------------------------------------------
// Main.

async function detectEnv(
  dedicatedUrl: string | undefined,
): Promise<{ env: CaseEnv; notes: string[] }> {
  const notes: string[] = [];
  const probeBody = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}';
  const bad = await post(`/rpc/${new Rng(SEED, 0x7ffffffe).hex(16)}`, probeBody);
  if (bad.status !== 401)
    notes.push(
      `POST /rpc/<unknown key> answers ${bad.status} (dedicated endpoint missing?); expecting ${bad.status} for rpc-key cases`,
    );
  let dedicatedPath: string | undefined;
  if (dedicatedUrl !== undefined) {
    const u = only127(dedicatedUrl, "the dedicated URL");
    const a = await post(u.pathname, probeBody);
    if (a.status === 200 && isObject(a.json) && "result" in a.json) dedicatedPath = u.pathname;
    else notes.push(`dedicated URL ${u.pathname} answers HTTP ${a.status}: not used`);
  } else notes.push("no dedicated URL (none printed, no --dedicated-url): public endpoint only");
  return {
    env: {
      dedicatedPath,
      badKeyStatus: bad.status,
      accounts: devAccounts(10).map((a) => a.address),
    },
    notes,
  };
}

async function replay(env: CaseEnv, indices: number[]): Promise<number> {
  let bad = 0;
  for (const i of indices) {
    const c = generateCase(SEED, i, env);
    console.log(`\n${describe(c)}`);
    const o = await runCase(c);
    console.log(
      `  statuses: ${o.statuses.join(", ") || "none"}${o.connEvent === undefined ? "" : `; connection: ${o.connEvent}`}`,
    );
    for (const p of o.problems)
      console.log(
        `  PROBLEM ${p.what}: ${p.detail}${p.response === undefined ? "" : `\n    answer: ${preview(p.response, 2000)}`}`,
      );
    if (o.problems.length > 0) bad++;
    if (child?.exited !== undefined) {
      console.log(`  NODE CRASHED: ${child.exited}\n${child.log.slice(-30).join("\n")}`);
      return 1;
    }
  }
  return bad > 0 ? 1 : 0;
}

async function main(): Promise<number> {
  let dedicatedUrl = opts["dedicated-url"];
  if (opts.url !== undefined) target = only127(opts.url, "--url");
  else {
    const started = await startChild();
    target = only127(started.url, "the node URL");
    dedicatedUrl ??= started.dedicated;
  }
  const { env, notes } = await detectEnv(dedicatedUrl);
  const mode =
    child === undefined
      ? `target ${target.href}`
      : `flashnode dev child pid ${child.proc.pid} at ${target.href}`;
  console.log(`fuzz: seed ${SEED}, ${mode}, concurrency ${CONCURRENCY}`);
  for (const n of notes) console.log(`  note: ${n}`);

  if (opts.replay !== undefined) {
    const indices = opts.replay.split(",").map((s) => Number(s.trim()));
    return replay(env, indices);
  }

  const startedAt = Date.now();
  const rss = { start: childRssMiB(), max: childRssMiB() ?? 0 };
  let next = 0;
  let crash: { what: string; inflight: FuzzCase[] } | undefined;
  let skipped = 0;
  const elapsed = () => Date.now() - startedAt;
  const shouldStop = () =>
    crash !== undefined ||
    elapsed() >= MAX_SECONDS * 1000 ||
    (elapsed() >= SECONDS * 1000 && sent >= MIN_REQUESTS);

  const monitor = setInterval(() => {
    const r = childRssMiB();
    if (r !== undefined) rss.max = Math.max(rss.max, r);
    const bad = [...problemCounts.values()].reduce((a, b) => a + b, 0);
    process.stderr.write(
      `  ${Math.round(elapsed() / 1000)} s: ${sent} requests, ${Math.round(sent / (elapsed() / 1000))}/s, ${bad} problems\n`,
    );
  }, 10_000);
  const watch = setInterval(() => {
    if (crash === undefined && child?.exited !== undefined && !stopping)
      crash = { what: child.exited, inflight: crashInflight ?? [] };
  }, 20);
  const failedConnection = (o: Outcome) =>
    o.problems.some((p) => p.what === "connection" || p.what === "unanswered");

  /** Runs one case and records it; false when the node is gone. */
  async function handle(c: FuzzCase): Promise<boolean> {
    inflight.set(c.index, c);
    const o = await runCase(c);
    if (failedConnection(o)) {
      // A cut connection may be the node dying: wait for the exit before blaming the case.
      if (child !== undefined) {
        const until = Date.now() + 1_000;
        while (child.exited === undefined && Date.now() < until) await sleep(20);
      } else {
        // With --url there is no process to watch: a node that no longer answers is gone.
        const alive = await rpc("/", "eth_chainId", []).then(
          () => true,
          () => false,
        );
        if (!alive) crash ??= { what: "target stopped answering", inflight: [c] };
      }
    }
    // Answers cut by the crash are not findings of their own; the crash report lists them.
    if (crash !== undefined || (child?.exited !== undefined && !stopping)) return false;
    inflight.delete(c.index);
    record(c, o);
    return true;
  }

  // Sessions that mostly wait (dribbled bodies, stalls, WebSocket listening) run beside the
  // workers, at most 2 × concurrency at once, so they do not starve the quick requests.
  const background = new Set<Promise<boolean>>();
  async function worker(): Promise<void> {
    while (!shouldStop()) {
      const c = generateCase(SEED, next++, env);
      if (excluded(c)) {
        skipped++;
        continue;
      }
      if (c.transport !== "http" && c.kind !== "dropped" && background.size < 2 * CONCURRENCY) {
        const p: Promise<boolean> = handle(c).finally(() => background.delete(p));
        background.add(p);
        continue;
      }
      if (!(await handle(c))) return;
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  await Promise.all(background);
  clearInterval(monitor);
  clearInterval(watch);
  if (crash === undefined && child?.exited !== undefined)
    crash = { what: child.exited, inflight: crashInflight ?? [] };
  const duration = elapsed();
  const rssEnd = childRssMiB();
  const probes = crash === undefined ? await runProbes(env) : [];
  const crashLog = (child?.log ?? []).filter((l) => !/^\(\d+\) 0x/.test(l)).slice(-25);
  const confirmation =
    crash !== undefined && child !== undefined ? await confirmCrash(crash.inflight) : undefined;

  // Summary.
  const total = (k: ProblemKind) => problemCounts.get(k) ?? 0;
  const lines: string[] = [];
  lines.push("", "=== fuzz summary ===");
  if (EXCLUDE.length > 0) lines.push(`excluded: ${EXCLUDE.join(", ")} (${skipped} cases not sent)`);
  lines.push(
    `seed ${SEED}    duration ${(duration / 1000).toFixed(1)} s    requests ${sent} (${Math.round(sent / (duration / 1000))}/s)    concurrency ${CONCURRENCY}`,
  );
  if (rss.start !== undefined)
    lines.push(
      `node RSS: ${rss.start} MiB at start, ${rss.max} MiB max, ${rssEnd ?? "?"} MiB at end`,
    );
  lines.push("", "by case kind:");
  const rows = [["kind", "sent", "conn", "failed", "statuses"]];
  for (const [kind, s] of byKind)
    if (s.sent > 0)
      rows.push([
        kind,
        String(s.sent),
        String(s.conn),
        String(s.failed),
        fmtStatuses(s.statuses) || "-",
      ]);
  lines.push(table(rows).replace(/^/gm, "  "));
  lines.push("", `HTTP statuses: ${fmtStatuses(statusCounts)}`);
  lines.push(`JSON-RPC error codes: ${fmtStatuses(errorCodes)}`);
  lines.push(`5xx answers: ${total("5xx")}`);
  lines.push(`malformed JSON-RPC answers: ${total("malformed")}`);
  lines.push(`unexpected statuses: ${total("status")}`);
  lines.push(`unanswered (hang/timeout/cut before the answer): ${total("unanswered")}`);
  lines.push(`unexpected connection errors: ${total("connection")}`);
  lines.push(`expected connection outcomes (dropped/stalled/refused sockets): ${connEvents}`);
  lines.push(
    `crashes: ${crash === undefined ? 0 : 1}${crash === undefined ? "" : ` (${crash.what})`}`,
  );
  if (suspicious.size > 0) {
    lines.push("", "warnings: internal-looking error messages (-32603 or JS exception text):");
    for (const [m, { n, index }] of [...suspicious.entries()]
      .sort((a, b) => b[1].n - a[1].n)
      .slice(0, 15))
      lines.push(`  ${n}× ${m}  (first: case #${index})`);
  }
  if (failures.length > 0) {
    lines.push(
      "",
      `failures (first ${Math.min(failures.length, 25)} of ${[...problemCounts.values()].reduce((a, b) => a + b, 0)}):`,
    );
    const seen = new Set<string>();
    let shown = 0;
    for (const f of failures) {
      const key = `${f.c.kind}/${f.c.variant}/${f.problem.what}/${f.problem.detail}`;
      if (seen.has(key) || shown >= 25) continue;
      seen.add(key);
      shown++;
      lines.push(`  [${f.problem.what}] ${f.problem.detail}`);
      lines.push(`    ${describe(f.c)}`);
      if (f.problem.response !== undefined)
        lines.push(`    answer: ${preview(f.problem.response)}`);
    }
  }
  if (crash !== undefined) {
    lines.push(
      "",
      `CRASH: ${crash.what}; cases in flight: ${crash.inflight.map((c) => c.index).join(", ") || "unknown"}`,
    );
    for (const c of crash.inflight) lines.push(`  ${describe(c)}`);
    if (child !== undefined)
      lines.push("node output (last lines):", ...crashLog.map((l) => `  ${l}`));
    if (confirmation !== undefined)
      lines.push(`confirmation on a fresh node: ${confirmation.text}`);
  }
  lines.push("", "probes:");
  if (probes.length === 0) lines.push("  skipped (node crashed)");
  for (const p of probes) lines.push(`  ${p.ok ? "ok  " : "FAIL"} ${p.name}: ${p.detail}`);
  const failed =
    total("5xx") +
      total("malformed") +
      total("status") +
      total("unanswered") +
      total("connection") >
      0 ||
    crash !== undefined ||
    probes.some((p) => !p.ok);
  const indices = [...new Set(failures.map((f) => f.c.index))].slice(0, 10);
  if (confirmation?.culprit !== undefined) indices.unshift(confirmation.culprit);
  else if (crash !== undefined) for (const c of crash.inflight) indices.push(c.index);
  if (indices.length > 0) {
    const ded =
      opts["dedicated-url"] === undefined ? "" : ` --dedicated-url ${opts["dedicated-url"]}`;
    const url = child === undefined ? ` --url ${target.href}${ded}` : "";
    lines.push("", `reproduce: npm run fuzz -- --seed ${SEED}${url} --replay ${indices.join(",")}`);
  }
  lines.push("", failed ? "RESULT: FAIL" : "RESULT: PASS");
  console.log(lines.join("\n"));
  return failed ? 1 : 0;
}

let code = 1;
process.once("SIGINT", () => {
  void stopChild().then(() => process.exit(130));
});
try {
  code = await main();
} catch (e) {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  code = 2;
} finally {
  agent.destroy();
  await stopChild();
}
process.exit(code);
