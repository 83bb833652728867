// What a case's answers may look like: the outcome record every sender fills in, and the status
// and JSON-RPC shape checks shared by the HTTP, raw-socket and WebSocket senders.
import type { IncomingHttpHeaders } from "node:http";
import type { HttpCase, RawCase } from "./cases/types.ts";
import { isObject } from "./util.ts";

export type ProblemKind = "5xx" | "status" | "malformed" | "unanswered" | "connection";
export type Problem = {
  readonly what: ProblemKind;
  readonly detail: string;
  readonly response?: string;
};
export type Outcome = {
  statuses: number[];
  problems: Problem[];
  /** An expected connection outcome: a cut, a hang, a socket the server closed. */
  connEvent?: string;
  errors: { code: number; message: string }[];
};

export const newOutcome = (): Outcome => ({ statuses: [], problems: [], errors: [] });

const RESPONSE_KEYS = new Set(["jsonrpc", "id", "result", "error"]);

/** Why `v` is not a JSON-RPC 2.0 response, or undefined if it is one. */
function responseProblem(v: unknown, errors: Outcome["errors"]): string | undefined {
  if (!isObject(v)) return "not an object";
  if (v.jsonrpc !== "2.0") return 'jsonrpc is not "2.0"';
  // geth's batchCallBuffer.respondWithError (a batch's timeout or size limit) echoes each
  // remaining message's raw id, and omits it when the message had none ([1,2], {}).
  const cutShort = isObject(v.error) && (v.error.code === -32002 || v.error.code === -32003);
  if (!("id" in v) && !cutShort) return "no id";
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
export function checkRpcBody(
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
export function checkHttp(
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
