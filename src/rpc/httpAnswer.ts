// What the JSON-RPC endpoint writes over HTTP: answers (status, Content-Type, Content-Length, a
// refusal's own fields, the body as text or as pieces), CORS (geth's rs/cors) and geth's
// plain-text transport errors. Two transports send them: node:http (rpc/server.ts: every request
// the fast path hands over) and the fast path (edge/fastHttp.ts: straight onto the socket, without
// node:http's per-request objects, about half of what a request costs). Both go through here, so
// they cannot drift apart; each keeps only its framing (node:http's own; the fast path's status
// line, Date and Connection fields).
import type { IncomingMessage, ServerResponse } from "node:http";
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { DispatchResult } from "./dispatch.ts";
import type { RefusedResponse } from "./responseTails.ts";
import { SplicedBody } from "./splicedBody.ts";

/** The answer to a request whose handling failed outside any call. */
export const INTERNAL_ERROR =
  '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}';

const CORS_METHODS = new Set(["POST", "GET", "OPTIONS"]);
const NO_FIELDS: readonly string[] = [];

function isRefused(out: DispatchResult): out is RefusedResponse {
  return typeof out === "object" && !(out instanceof SplicedBody);
}

/** The body of an answer: text, or pieces (a result kept as bytes); "" when nothing is sent. */
function bodyOf(out: DispatchResult): string | SplicedBody {
  if (out === undefined) return "";
  if (isRefused(out)) return out.body;
  return out;
}

function lengthOf(body: string | SplicedBody): number {
  return typeof body === "string" ? Buffer.byteLength(body) : body.byteLength;
}

/**
 * The Access-Control-Allow-Origin value for a request's Origin, as rs/cors answers for geth;
 * undefined when the origin is not allowed. `allowed` is lower-cased ("*": any).
 */
export function corsAllowOrigin(
  origin: string | undefined,
  allowed: ReadonlySet<string>,
): string | undefined {
  if (origin === undefined) return undefined;
  if (allowed.has("*")) return "*";
  return allowed.has(origin.toLowerCase()) ? origin : undefined;
}

/** The CORS fields of an answer that is not a preflight: [name, value, …]. */
export function corsFields(
  method: string | undefined,
  origin: string | undefined,
  allowed: ReadonlySet<string>,
): readonly string[] {
  const allowOrigin = CORS_METHODS.has(method ?? "") ? corsAllowOrigin(origin, allowed) : undefined;
  return allowOrigin === undefined
    ? ["vary", "Origin"]
    : ["vary", "Origin", "access-control-allow-origin", allowOrigin];
}

/**
 * rs/cors as geth configures it, on node:http: answers a preflight (true), or sets the CORS
 * fields every other answer to the request carries (errors included).
 */
export function applyCors(
  req: IncomingMessage,
  res: ServerResponse,
  allowed: ReadonlySet<string>,
): boolean {
  const wanted = req.headers["access-control-request-method"];
  if (req.method === "OPTIONS" && wanted !== undefined) {
    res.setHeader("vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers");
    const method = wanted.toUpperCase();
    const allowOrigin = corsAllowOrigin(req.headers.origin, allowed);
    if (allowOrigin !== undefined && CORS_METHODS.has(method)) {
      res.setHeader("access-control-allow-origin", allowOrigin);
      res.setHeader("access-control-allow-methods", method);
      const headers = req.headers["access-control-request-headers"];
      if (headers !== undefined) res.setHeader("access-control-allow-headers", headers);
      res.setHeader("access-control-max-age", "600");
    }
    res.writeHead(204);
    res.end();
    return true;
  }
  const fields = corsFields(req.method, req.headers.origin, allowed);
  for (let i = 0; i < fields.length; i += 2) res.setHeader(fields[i]!, fields[i + 1]!);
  return false;
}

/** Go's http.Error (a transport error: bad method, size, type or host): plain text, newline. */
export function sendHttpError(res: ServerResponse, status: number, message: string): void {
  const body = `${message}\n`;
  res.writeHead(status, {
    "content-type": "text/plain; charset=utf-8",
    "x-content-type-options": "nosniff",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

/**
 * Sends a dispatch result on node:http (CORS fields set before, by applyCors). `close`: the
 * unread rest of a cut body makes the connection unusable for another request.
 */
export function sendAnswer(res: ServerResponse, out: DispatchResult, close: boolean): void {
  if (res.destroyed || res.writableEnded) return;
  const body = bodyOf(out);
  // A flat header list: the cheapest form for node:http to serialize.
  const headers: Array<string | number> = [
    "content-type",
    "application/json",
    "content-length",
    lengthOf(body),
  ];
  const refused = isRefused(out);
  if (refused) for (const [name, value] of Object.entries(out.headers)) headers.push(name, value);
  if (close) headers.push("connection", "close");
  res.writeHead(refused ? out.status : 200, headers);
  if (typeof body === "string") return void res.end(body);
  res.cork();
  for (const part of body.parts) res.write(part);
  res.uncork();
  res.end();
}

/**
 * Writes a dispatch result straight onto a socket (the fast path, HTTP/1.1): the fields
 * sendAnswer sends, then `cors` (corsFields), then `framing` (the transport's own fields and the
 * blank line that ends the head), then the body, in one write (one writev for pieces).
 */
export function writeAnswer(
  socket: Socket,
  out: DispatchResult,
  cors: readonly string[] | undefined,
  framing: string,
): void {
  const body = bodyOf(out);
  let head = "HTTP/1.1 200 OK\r\n";
  let extra = "";
  if (isRefused(out)) {
    head = `HTTP/1.1 ${out.status} ${STATUS_CODES[out.status] ?? "Unknown"}\r\n`;
    for (const name in out.headers) extra += `${name}: ${out.headers[name]}\r\n`;
  }
  const fields = cors ?? NO_FIELDS;
  for (let i = 0; i < fields.length; i += 2) extra += `${fields[i]}: ${fields[i + 1]}\r\n`;
  head += `content-type: application/json\r\ncontent-length: ${lengthOf(body)}\r\n${extra}${framing}`;
  if (typeof body === "string") return void socket.write(`${head}${body}`);
  socket.cork();
  socket.write(head);
  for (const part of body.parts) socket.write(part);
  socket.uncork();
}
