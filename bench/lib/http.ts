// Shared by the benchmarks: a keep-alive JSON POST, and waiting for a child process to print
// the URL it serves.
import type { ChildProcess } from "node:child_process";
import { Agent, request } from "node:http";

export const benchAgent = new Agent({ keepAlive: true, maxSockets: 32 });

/** POSTs a JSON body on a keep-alive connection; resolves with the response text. */
export function postJson(url: string, body: string): Promise<string> {
  const u = new URL(url);
  return new Promise((ok, fail) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: "POST",
        agent: benchAgent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (text += c));
        res.on("end", () => ok(text));
      },
    );
    req.on("error", fail);
    req.end(body);
  });
}

export function rpcBody(method: string, params: unknown[]): string {
  return JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
}

/**
 * Resolves with the first capture of `pattern` in the child's stdout/stderr; rejects on exit,
 * or after `timeoutMs` (a child stuck before it is ready is a failure, not a wait forever).
 */
export function waitForOutput(
  child: ChildProcess,
  pattern: RegExp,
  timeoutMs = 180_000,
): Promise<string> {
  return new Promise((ok, fail) => {
    let out = "";
    const timer = setTimeout(
      () => fail(new Error(`not ready within ${timeoutMs / 1000} s:\n${out}`)),
      timeoutMs,
    );
    timer.unref();
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = pattern.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(m[1]!);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`exited (${code}) before ready:\n${out}`));
    });
  });
}
