// Drives wrk (Debian's package) with a Lua script that builds each POST body, and parses its
// latency distribution.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type WrkResult = {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
};

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

function toMs(value: string, unit: string): number {
  const n = Number(value);
  return unit === "us" ? n / 1000 : unit === "s" ? n * 1000 : n;
}

export function runWrk(
  url: string,
  script: string,
  seconds: number,
  connections: number,
): Promise<WrkResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("wrk", [
      "-t1",
      `-c${connections}`,
      `-d${seconds}s`,
      "--latency",
      "-s",
      script,
      url,
    ]);
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (out += c.toString()));
    child.on("error", reject);
    child.on("exit", () => {
      const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
      const p50 = /\s50%\s+([\d.]+)(us|ms|s)/.exec(out);
      const p99 = /\s99%\s+([\d.]+)(us|ms|s)/.exec(out);
      const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out);
      const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
      if (rps === null || p50 === null || p99 === null)
        return reject(new Error(`cannot parse wrk output:\n${out}`));
      const errors =
        Number(non2xx?.[1] ?? 0) +
        (sock === null ? 0 : sock.slice(1).reduce((n, x) => n + Number(x), 0));
      resolve({
        requestsPerSecond: Number(rps[1]),
        p50Ms: toMs(p50[1]!, p50[2]!),
        p99Ms: toMs(p99[1]!, p99[2]!),
        errors,
      });
    });
  });
}
