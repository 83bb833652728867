// Runs a WebSocket case with the ws client: sends the frames, checks every message, and (for
// JSON-RPC sockets) requires an answer to a sentinel eth_chainId after them.
import WebSocket from "ws";
import type { WsCase } from "./cases/types.ts";
import { checkRpcBody, newOutcome, type Outcome } from "./checks.ts";
import { MAX_RESPONSE_BYTES } from "./options.ts";
import type { Target } from "./target.ts";
import { isObject, sleep } from "./util.ts";

export function runWs(target: Target, c: WsCase): Promise<Outcome> {
  const o = newOutcome();
  const sentinelId = `fuzz-sentinel-${c.index}`;
  const expectsClose = c.variant === "invalid-utf8" || c.variant === "oversized";
  return new Promise((done) => {
    let finished = false;
    let closing = false;
    let sentinelSeen = false;
    let onSentinel: (() => void) | undefined;
    const ws = new WebSocket(new URL(c.path, target.url), {
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
