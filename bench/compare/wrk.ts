// Drives wrk (Debian's package) with a Lua script that builds each POST body, and parses its
// latency distribution.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type WrkResult = {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  /** wrk --latency's other percentiles (undefined if a wrk build does not print them). */
  readonly p75Ms: number | undefined;
  readonly p90Ms: number | undefined;
  readonly p99Ms: number;
  readonly errors: number;
  readonly requests: number;
  /** Answers a checking script refused (pacedCheckingScript), 0 otherwise. */
  readonly badAnswers: number;
  /** Whether a checking script reported (false: it did not run, e.g. a Lua error). */
  readonly checked: boolean;
  /** What wrk printed on stderr (a checking script's first refused answers). */
  readonly stderr: string;
  /** CPU time the hypervisor gave to others during the run (steal, all CPUs), in ms. */
  readonly stealMs: number;
};

/** The machine's steal time so far (all CPUs), in ms: /proc/stat's 8th cpu field, in ticks. */
export function stealMs(): number {
  try {
    const cpu = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/);
    return Number(cpu[8] ?? 0) * 10;
  } catch {
    return 0; // not Linux: no steal figure
  }
}

export function ensureWrk(): string {
  try {
    return execFileSync("which", ["wrk"], { encoding: "utf8" }).trim();
  } catch {
    throw new Error("wrk is not installed: apt-get install -y wrk (Debian's package)");
  }
}

const dir = mkdtempSync(join(tmpdir(), "flashnode-wrk-"));
let scripts = 0;

/** A Lua `request` function body returning the JSON text of one request (string expression). */
export function luaScript(path: string, bodyExpression: string): string {
  const file = join(dir, `w${scripts++}.lua`);
  writeFileSync(
    file,
    `wrk.method = "POST"
wrk.path = "${path}"
wrk.headers["Content-Type"] = "application/json"
math.randomseed(os.time())
request = function()
  local body = ${bodyExpression}
  return wrk.format(nil, nil, nil, body)
end
`,
  );
  return file;
}

/**
 * A paced, checking script: each connection cycles through `bodies`, waits `delayMs` (0: no
 * wait) before each request (so the rate is about connections × 1000 / (delayMs + latency)), and counts answers
 * not starting with `okPrefix` (printed as "BAD n"; the first few go to stderr).
 */
export function pacedCheckingScript(
  path: string,
  bodies: readonly string[],
  delayMs: number,
  okPrefix: string,
): string {
  const file = join(dir, `w${scripts++}.lua`);
  const list = bodies.map((b) => `[==[${b}]==]`).join(",\n  ");
  writeFileSync(
    file,
    `wrk.method = "POST"
wrk.path = "${path}"
wrk.headers["Content-Type"] = "application/json"
local bodies = {
  ${list}
}
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) bad = 0; i = 0 end
${delayMs > 0 ? `function delay() return ${delayMs} end` : "-- unpaced"}
function request()
  i = i + 1
  return wrk.format(nil, nil, nil, bodies[(i % #bodies) + 1])
end
function response(status, headers, body)
  if string.sub(body, 1, ${okPrefix.length}) ~= [==[${okPrefix}]==] then
    bad = bad + 1
    if bad <= 5 then io.stderr:write(status .. " " .. string.sub(body, 1, 200) .. "\\n") end
  end
end
function done(summary, latency, requests)
  local total = 0
  for _, t in ipairs(threads) do total = total + t:get("bad") end
  io.write("BAD " .. total .. "\\n")
end
`,
  );
  return file;
}

function toMs(value: string, unit: string): number {
  const n = Number(value);
  return unit === "us" ? n / 1000 : unit === "s" ? n * 1000 : n;
}

/** What wrk --latency printed (stdout and stderr), as figures; throws if it cannot be read. */
export function parseWrkOutput(out: string): Omit<WrkResult, "stealMs" | "stderr"> {
  const percentile = (p: number) => {
    const m = new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s)`).exec(out);
    return m === null ? undefined : toMs(m[1]!, m[2]!);
  };
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const p50 = percentile(50);
  const p99 = percentile(99);
  if (rps === null || p50 === undefined || p99 === undefined)
    throw new Error(`cannot parse wrk output:\n${out}`);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors =
    Number(non2xx?.[1] ?? 0) +
    (sock === null ? 0 : sock.slice(1).reduce((n, x) => n + Number(x), 0));
  const requests = /(\d+) requests in/.exec(out);
  const bad = /^BAD (\d+)$/m.exec(out);
  return {
    requests: Number(requests?.[1] ?? 0),
    badAnswers: Number(bad?.[1] ?? 0),
    checked: bad !== null,
    requestsPerSecond: Number(rps[1]),
    p50Ms: p50,
    p75Ms: percentile(75),
    p90Ms: percentile(90),
    p99Ms: p99,
    errors,
  };
}

/** wrk's threads, and the CPUs it is pinned to (taskset -c; none: not pinned). */
export type WrkPlacement = { readonly threads: number; readonly cpus?: string };

export function runWrk(
  url: string,
  script: string,
  seconds: number,
  connections: number,
  placement: WrkPlacement = { threads: 1 },
): Promise<WrkResult> {
  return new Promise((resolve, reject) => {
    const args = [
      `-t${placement.threads}`,
      `-c${connections}`,
      `-d${seconds}s`,
      "--latency",
      "-s",
      script,
      url,
    ];
    const child =
      placement.cpus === undefined
        ? spawn("wrk", args)
        : spawn("taskset", ["-c", placement.cpus, "wrk", ...args]);
    const steal0 = stealMs();
    let out = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => {
      out += c.toString();
      stderr += c.toString();
    });
    child.on("error", reject);
    child.on("exit", () => {
      try {
        resolve({ ...parseWrkOutput(out), stealMs: stealMs() - steal0, stderr });
      } catch (e) {
        reject(e);
      }
    });
  });
}
