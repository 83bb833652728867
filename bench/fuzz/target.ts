// The node the harness talks to, and plain JSON-RPC over HTTP for setup, liveness checks and
// probes (not fuzz cases: these must succeed).
import { type Agent, request } from "node:http";
import { isObject } from "./util.ts";

/** Where requests go; `url` changes when a crash check starts a fresh node. */
export type Target = { url: URL; readonly agent: Agent };

export type RpcAnswer = { status: number; json: unknown };

export function post(target: Target, path: string, body: string): Promise<RpcAnswer> {
  return new Promise((ok, fail) => {
    const req = request(
      {
        host: target.url.hostname,
        port: target.url.port,
        method: "POST",
        path,
        agent: target.agent,
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

export async function rpc(
  target: Target,
  path: string,
  method: string,
  params: unknown[],
): Promise<unknown> {
  const a = await post(target, path, JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }));
  if (a.status !== 200 || !isObject(a.json))
    throw new Error(`${method}: HTTP ${a.status} ${JSON.stringify(a.json)}`);
  if (a.json.error !== undefined) throw new Error(`${method}: ${JSON.stringify(a.json.error)}`);
  return a.json.result;
}
