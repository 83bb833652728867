// A request's envelope as dispatch.ts reads it: a fresh one for the scanner to fill, what kind of
// message it is as geth's jsonrpcMessage methods tell (rpc/json.go: a call, a notification, or
// one the handler drops unanswered), and its params.
import type { Envelope } from "./wire.ts";

export function newEnvelope(): Envelope {
  return { version: "", id: undefined, method: "", paramsKey: undefined, hasResultOrError: false };
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function paramsOf(env: Envelope, msg: unknown): unknown {
  return env.paramsKey === undefined ? undefined : (msg as Record<string, unknown>)[env.paramsKey];
}

export function hasValidId(env: Envelope): boolean {
  const c = env.id?.charCodeAt(0);
  return c !== undefined && c !== 0x7b && c !== 0x5b;
}

export function isNotification(env: Envelope): boolean {
  return env.version === "2.0" && env.id === undefined && env.method !== "";
}

export function isCall(env: Envelope): boolean {
  return env.version === "2.0" && env.method !== "" && hasValidId(env);
}

/** Messages geth's handler drops without answering: responses and subscription pushes. */
export function isIgnored(env: Envelope): boolean {
  if (env.version !== "2.0") return false;
  if (isNotification(env)) return env.method.endsWith("_subscription");
  return (
    env.method === "" && hasValidId(env) && env.hasResultOrError && env.paramsKey === undefined
  );
}
