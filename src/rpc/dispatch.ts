// JSON-RPC 2.0 envelope handling with geth's semantics (rpc/json.go, rpc/handler.go,
// rpc/server.go): raw id echo, notifications, batches, limits, timeouts.

import {
  InvalidParamsError,
  InvalidRequestError,
  MethodNotFoundError,
  RpcError,
  ServerError,
  toRpcError,
} from "../services/errors.ts";
import { reachOf } from "../util/errors.ts";
import {
  BATCH_REQUEST_LIMIT,
  BATCH_RESPONSE_MAX_SIZE,
  MAX_METHOD_NAME_LENGTH,
  RPC_REQUEST_TIMEOUT_MS,
} from "./limits.ts";
import type {
  CallSummary,
  MethodDef,
  MethodRegistry,
  ParamSpec,
  RequestContext,
} from "./method.ts";
import { parseSubscriptionId } from "./params.ts";
import {
  hasValidId,
  isCall,
  isIgnored,
  isNotification,
  isObject,
  newEnvelope,
  paramsOf,
} from "./requestEnvelope.ts";
import {
  appendErrors,
  EMPTY_BATCH,
  errorTail,
  INVALID_REQUEST,
  PARSE_ERROR,
  payloadSize,
  type RefusedResponse,
  refused,
  resultTail,
  type Tail,
  TIMED_OUT,
  TOO_LARGE,
  tailLength,
  wrap,
  wrapTail,
} from "./responseTails.ts";
import { readSimpleBatch, readSimpleRequest } from "./simpleRequest.ts";
import { joinParts, type SplicedBody } from "./splicedBody.ts";
import {
  type Envelope,
  encodeRpcError,
  firstValueEnd,
  scanEnvelope,
  skipSpace,
  skipValue,
  utf8Length,
} from "./wire.ts";

export type DispatcherOptions = {
  /** Max calls per batch (0: unlimited). */
  readonly batchRequestLimit?: number;
  /** Max summed result/error bytes per batch (0: unlimited). */
  readonly batchResponseMaxSize?: number;
  /** Per request (whole batch) time limit; 0 disables. */
  readonly requestTimeoutMs?: number;
  /**
   * false (default): geth's HTTP behaviour, `*_subscribe` → "notifications not supported",
   * `*_unsubscribe` → "subscription not found". true: looked up in the registry (WebSocket).
   */
  readonly subscriptions?: boolean;
  /** A handler threw something other than an RPC error class: a bug or a corrupt record. */
  readonly onUnexpectedError?: (method: string, error: unknown) => void;
  /** Called after every call with its method, duration and error code (metrics). */
  readonly observe?: (
    method: string,
    ctx: RequestContext,
    ms: number,
    errorCode: number | undefined,
  ) => void;
};

/**
 * The response body (a string, or pieces when a result is kept as bytes), or undefined when
 * nothing is to be sent (notifications, empty body).
 */
export type DispatchResult = string | SplicedBody | undefined | RefusedResponse;

export type Dispatcher = {
  /** Synchronous when every call it holds is (no promise per request on the hot path). */
  handle(body: string, ctx: RequestContext): DispatchResult | Promise<DispatchResult>;
};

const NOTIFICATIONS_UNSUPPORTED = new RpcError(-32601, "notifications not supported");
const UNSUBSCRIBE_PARAMS: readonly ParamSpec<unknown>[] = [
  { parse: parseSubscriptionId, optional: false },
];
const TIMEOUT = Symbol("timeout");

/** geth parsePositionalArguments. */
export function parseArgs(specs: readonly ParamSpec<unknown>[], raw: unknown): unknown[] {
  if (raw !== undefined && raw !== null && !Array.isArray(raw)) {
    throw new InvalidParamsError("non-array args");
  }
  const given = raw === undefined || raw === null ? 0 : (raw as unknown[]).length;
  const args: unknown[] = new Array(specs.length);
  for (let i = 0; i < given; i++) {
    const spec = specs[i];
    if (spec === undefined) {
      throw new InvalidParamsError(`too many arguments, want at most ${specs.length}`);
    }
    const value = (raw as unknown[])[i];
    if (spec.optional && value === null) {
      args[i] = spec.absent;
      continue;
    }
    try {
      args[i] = spec.parse(value);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      throw new InvalidParamsError(`invalid argument ${i}: ${message}`);
    }
  }
  for (let i = given; i < specs.length; i++) {
    const spec = specs[i]!;
    if (!spec.optional) throw new InvalidParamsError(`missing value for required argument ${i}`);
    args[i] = spec.absent;
  }
  return args;
}

function withTimeout(work: Promise<Tail>, ms: number): Promise<Tail | typeof TIMEOUT> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(TIMEOUT), ms);
    work.then((tail) => {
      clearTimeout(timer);
      resolve(tail);
    });
  });
}

export function createDispatcher(
  methods: MethodRegistry,
  options: DispatcherOptions = {},
): Dispatcher {
  // A Map, so names like "toString" or "__proto__" never hit Object.prototype.
  const table = new Map<string, MethodDef>(Object.entries(methods));
  const batchLimit = options.batchRequestLimit ?? BATCH_REQUEST_LIMIT;
  const maxResponse = options.batchResponseMaxSize ?? BATCH_RESPONSE_MAX_SIZE;
  const timeoutMs = options.requestTimeoutMs ?? RPC_REQUEST_TIMEOUT_MS;
  const subscriptions = options.subscriptions ?? false;
  const observe = options.observe;
  const onUnexpectedError = options.onUnexpectedError;

  /**
   * geth handler.handleCall: the result or error of one call or notification. Never throws.
   * Synchronous handlers answer synchronously: no promise and no timeout timer per call.
   */
  function callTail(env: Envelope, rawParams: unknown, ctx: RequestContext): Tail | Promise<Tail> {
    const method = env.method;
    // A batch's calls mostly name one method: what the checks below found for it is reused.
    const def = method === lastMethod ? lastDef! : checkedMethod(method, rawParams);
    if (typeof def === "string") return def;
    lastMethod = method;
    lastDef = def;
    const started = observe === undefined ? 0 : performance.now();
    let out: unknown;
    try {
      out = def.handler(parseArgs(def.params, rawParams), ctx, rawParams);
    } catch (e) {
      return failedTail(method, ctx, started, e);
    }
    if (out instanceof Promise) {
      return out.then(
        (result) => succeededTail(method, ctx, started, result),
        (e) => failedTail(method, ctx, started, e),
      );
    }
    return succeededTail(method, ctx, started, out);
  }

  let lastMethod: string | undefined;
  let lastDef: MethodDef | undefined;

  /** The method's definition, or the error tail for a name that cannot be called. */
  function checkedMethod(method: string, rawParams: unknown): MethodDef | string {
    if (method.length * 3 > MAX_METHOD_NAME_LENGTH) {
      const n = utf8Length(method);
      if (n > MAX_METHOD_NAME_LENGTH) {
        return errorTail(
          new InvalidRequestError(`method name too long: ${n} > ${MAX_METHOD_NAME_LENGTH}`),
        );
      }
    }
    if (!subscriptions) {
      if (method.endsWith("_subscribe")) return errorTail(NOTIFICATIONS_UNSUPPORTED);
      if (method.endsWith("_unsubscribe")) {
        try {
          parseArgs(UNSUBSCRIBE_PARAMS, rawParams);
        } catch (e) {
          return errorTail(e);
        }
        return errorTail(new ServerError("subscription not found"));
      }
    }
    return table.get(method) ?? errorTail(new MethodNotFoundError(method));
  }

  function failedTail(method: string, ctx: RequestContext, started: number, e: unknown): string {
    // A JSON-RPC error or an operator's (an upstream out of reach, a full disk) is answered as
    // one line, not reported as a bug.
    if (reachOf(e) === "internal") onUnexpectedError?.(method, e);
    const err = toRpcError(e);
    observe?.(method, ctx, performance.now() - started, err.code);
    return `"error":${encodeRpcError(err)}`;
  }

  function succeededTail(
    method: string,
    ctx: RequestContext,
    started: number,
    result: unknown,
  ): Tail {
    const tail = resultTail(result);
    observe?.(method, ctx, performance.now() - started, undefined);
    return tail;
  }

  function run(
    env: Envelope,
    rawParams: unknown,
    ctx: RequestContext,
    ms: number,
  ): Tail | Promise<Tail | typeof TIMEOUT> {
    const work = callTail(env, rawParams, ctx);
    if (!(work instanceof Promise) || ms <= 0) return work;
    return withTimeout(work, ms);
  }

  function handleSingle(
    body: string,
    start: number,
    msg: unknown,
    ctx: RequestContext,
  ): DispatchResult | Promise<DispatchResult> {
    const env = newEnvelope();
    if (isObject(msg) && scanEnvelope(body, start, 0, env) < 0) return PARSE_ERROR;
    return answerSingle(env, paramsOf(env, msg), ctx);
  }

  function answerSingle(
    env: Envelope,
    params: unknown,
    ctx: RequestContext,
  ): DispatchResult | Promise<DispatchResult> {
    if (isIgnored(env)) return undefined;
    if (isCall(env) || isNotification(env)) {
      const refusal = ctx.admit?.([{ method: env.method, params }]);
      if (refusal !== undefined) return refused(env.id, refusal);
      const tail = run(env, params, ctx, timeoutMs);
      return tail instanceof Promise
        ? tail.then((t) => singleAnswer(env, t))
        : singleAnswer(env, tail);
    }
    return wrap(hasValidId(env) ? env.id : "null", INVALID_REQUEST);
  }

  function singleAnswer(env: Envelope, tail: Tail | typeof TIMEOUT): DispatchResult {
    // geth writes the timeout error even for a notification (without an id).
    if (tail === TIMEOUT) return wrap(env.id, TIMED_OUT);
    return isNotification(env) ? undefined : wrapTail(env.id, tail);
  }

  function handleBatch(body: string, start: number, msgs: unknown[], ctx: RequestContext) {
    if (msgs.length === 0) return EMPTY_BATCH;
    // Scan every element first: nesting depth is part of the syntax check.
    const envs: Envelope[] = new Array(msgs.length);
    const params: unknown[] = new Array(msgs.length);
    let j = skipSpace(body, start + 1);
    for (let k = 0; k < msgs.length; k++) {
      const env = newEnvelope();
      const end = isObject(msgs[k]) ? scanEnvelope(body, j, 1, env) : skipValue(body, j, 1);
      if (end < 0) return PARSE_ERROR;
      envs[k] = env;
      params[k] = paramsOf(env, msgs[k]);
      j = skipSpace(body, skipSpace(body, end) + 1);
    }
    return answerBatch(envs, params, ctx);
  }

  async function answerBatch(envs: Envelope[], params: unknown[], ctx: RequestContext) {
    if (batchLimit > 0 && envs.length > batchLimit) {
      const first = envs.find(isCall);
      const id = first === undefined ? "null" : first.id;
      return `[${wrap(id, '"error":{"code":-32600,"message":"batch too large"}')}]`;
    }
    const calls: number[] = [];
    for (let k = 0; k < envs.length; k++) if (!isIgnored(envs[k]!)) calls.push(k);
    if (calls.length === 0) return undefined;
    if (ctx.admit !== undefined) {
      const summaries: CallSummary[] = [];
      for (const k of calls) {
        const env = envs[k]!;
        if (isCall(env) || isNotification(env))
          summaries.push({ method: env.method, params: params[k] });
      }
      // A batch holding a refused call is refused whole.
      const refusal = ctx.admit(summaries);
      if (refusal !== undefined) return refused(undefined, refusal);
    }

    const deadline = timeoutMs > 0 ? Date.now() + timeoutMs : 0;
    const out: (string | SplicedBody)[] = [];
    let spliced = false;
    let size = 0;
    const unmeasured: Tail[] = [];
    for (let c = 0; c < calls.length; c++) {
      const k = calls[c]!;
      const env = envs[k]!;
      let tail: Tail | typeof TIMEOUT = INVALID_REQUEST;
      if (isCall(env) || isNotification(env)) {
        const left = deadline === 0 ? 0 : deadline - Date.now();
        if (deadline !== 0 && left <= 0) tail = TIMEOUT;
        else {
          // A synchronous answer is taken as it is: no promise settles per call of the batch.
          const r = run(env, params[k], ctx, left);
          tail = r instanceof Promise ? await r : r;
        }
      }
      if (tail === TIMEOUT) {
        // The call in progress and all later ones get the timeout error.
        appendErrors(out, envs, calls, c, TIMED_OUT);
        break;
      }
      if (isNotification(env)) continue;
      if (typeof tail !== "string") spliced = true;
      out.push(wrapTail(hasValidId(env) ? env.id : "null", tail));
      if (maxResponse > 0) {
        // An upper bound (3 bytes per UTF-16 unit) until it passes the limit; then the tails
        // not yet measured are measured exactly. Most batches never pay for a byte count.
        size += 3 * tailLength(tail);
        unmeasured.push(tail);
        if (size > maxResponse) {
          for (const t of unmeasured) size += payloadSize(t) - 3 * tailLength(t);
          unmeasured.length = 0;
          if (size > maxResponse) {
            appendErrors(out, envs, calls, c + 1, TOO_LARGE);
            break;
          }
        }
      }
    }
    if (out.length === 0) return undefined;
    if (!spliced) return `[${out.join(",")}]`;
    const items: (string | SplicedBody)[] = ["["];
    for (let i = 0; i < out.length; i++) items.push(i === 0 ? "" : ",", out[i]!);
    items.push("]");
    return joinParts(items);
  }

  return {
    handle(body, ctx) {
      const start = skipSpace(body, 0);
      if (start === body.length) return undefined; // io.EOF: geth writes nothing
      // The shape nearly every client sends is read in one pass; the rest takes the general path.
      const first = body.charCodeAt(start);
      if (first === 0x7b) {
        const m = readSimpleRequest(body, start);
        if (m !== undefined) return answerSingle(m.env, m.params, ctx);
      } else if (first === 0x5b) {
        const batch = readSimpleBatch(body, start);
        if (batch !== undefined)
          return answerBatch(
            batch.map((m) => m.env),
            batch.map((m) => m.params),
            ctx,
          );
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        // geth's decoder reads one value and ignores what follows it.
        const end = firstValueEnd(body, start);
        if (end < 0) return PARSE_ERROR;
        try {
          parsed = JSON.parse(body.slice(start, end));
        } catch {
          return PARSE_ERROR;
        }
      }
      return Array.isArray(parsed)
        ? handleBatch(body, start, parsed, ctx)
        : handleSingle(body, start, parsed, ctx);
    },
  };
}
