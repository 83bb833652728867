// Sends an HTTP case with node:http and checks the answer.
import { request } from "node:http";
import type { HttpCase } from "./cases/types.ts";
import { checkHttp, newOutcome, type Outcome } from "./checks.ts";
import { MAX_RESPONSE_BYTES, REQUEST_TIMEOUT_MS } from "./options.ts";
import type { Target } from "./target.ts";

export function runHttp(target: Target, c: HttpCase): Promise<Outcome> {
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
        host: target.url.hostname,
        port: target.url.port,
        method: c.method,
        path: c.path,
        headers,
        // A request the server may cut gets its own connection, not a pooled one.
        agent: c.mayDrop ? false : target.agent,
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
