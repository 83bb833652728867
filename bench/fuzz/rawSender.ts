// Sends a raw-socket case (bytes node:http would refuse to write) and parses the HTTP/1.1
// answers by hand.
import { connect } from "node:net";
import type { RawCase } from "./cases/types.ts";
import { checkHttp, newOutcome, type Outcome } from "./checks.ts";
import type { Target } from "./target.ts";
import { sleep } from "./util.ts";

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

export function runRaw(target: Target, c: RawCase): Promise<Outcome> {
  const o = newOutcome();
  return new Promise((done) => {
    const socket = connect({ host: target.url.hostname, port: Number(target.url.port) });
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
