// Writing the response: each call's tail (`"result":…` or `"error":…`), the envelope around it,
// the fixed error answers, and the byte counts geth's batch response limit is checked against.

import { InternalError, toRpcError } from "../services/errors.ts";
import { RawJson, RawJsonBytes, type Refusal } from "./method.ts";
import { isNotification } from "./requestEnvelope.ts";
import { SplicedBody, splice } from "./splicedBody.ts";
import { type Envelope, encodeRpcError } from "./wire.ts";

/** One call's `"result":…` or `"error":…` member. */
export type Tail = string | SplicedBody;

export const PARSE_ERROR =
  '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}';
export const EMPTY_BATCH =
  '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}';
export const INVALID_REQUEST = '"error":{"code":-32600,"message":"invalid request"}';
export const TIMED_OUT = '"error":{"code":-32002,"message":"request timed out"}';
export const TOO_LARGE = '"error":{"code":-32003,"message":"response too large"}';

/** `{"jsonrpc":"2.0","id":…,<tail>}`; geth omits `id` when the message had none. */
export function wrap(id: string | undefined, tail: string): string {
  return id === undefined ? `{"jsonrpc":"2.0",${tail}}` : `{"jsonrpc":"2.0","id":${id},${tail}}`;
}

/** A request refused by the admission check: sent with its own HTTP status. */
export type RefusedResponse = {
  readonly refused: true;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
};

/** A request the admission check refused, answered with its own HTTP status. */
export function refused(id: string | undefined, r: Refusal): RefusedResponse {
  const body = wrap(
    id ?? "null",
    `"error":${encodeRpcError({ code: r.code, message: r.message })}`,
  );
  return { refused: true, status: r.status, headers: r.headers ?? {}, body };
}

export function wrapTail(id: string | undefined, tail: Tail): string | SplicedBody {
  if (typeof tail === "string") return wrap(id, tail);
  return splice(id === undefined ? '{"jsonrpc":"2.0",' : `{"jsonrpc":"2.0","id":${id},`, tail, "}");
}

export function errorTail(e: unknown): string {
  return `"error":${encodeRpcError(toRpcError(e))}`;
}

/** Bytes geth counts towards the batch response limit: the result or error JSON. */
export function payloadSize(tail: Tail): number {
  // A spliced tail is always a result: `"result":` is 9 bytes.
  if (typeof tail !== "string") return tail.byteLength - 9;
  return Buffer.byteLength(tail) - (tail.charCodeAt(1) === 0x72 ? 9 : 8);
}

export function tailLength(tail: Tail): number {
  return typeof tail === "string" ? tail.length : tail.textLength();
}

/** Printable ASCII without `"` or `\\`: JSON.stringify would only add the quotes. */
function isPlainString(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

export function resultTail(result: unknown): Tail {
  // Most results are hex strings: quoted as they are, without a trip through JSON.stringify.
  if (typeof result === "string" && isPlainString(result)) return `"result":"${result}"`;
  if (result instanceof RawJson) return `"result":${result.json}`;
  if (result instanceof RawJsonBytes) return new SplicedBody(['"result":', result.bytes]);
  let json: string | undefined;
  try {
    json = JSON.stringify(result);
  } catch (e) {
    return errorTail(new InternalError(e instanceof Error ? e.message : String(e)));
  }
  return `"result":${json ?? "null"}`;
}

/** geth batchCallBuffer.respondWithError: every remaining non-notification, raw id as is. */
export function appendErrors(
  out: (string | SplicedBody)[],
  envs: readonly Envelope[],
  calls: readonly number[],
  from: number,
  tail: string,
): void {
  for (let c = from; c < calls.length; c++) {
    const env = envs[calls[c]!]!;
    if (!isNotification(env)) out.push(wrap(env.id, tail));
  }
}
