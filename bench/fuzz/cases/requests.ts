// Request helpers and status expectations shared by the case families: which route a case
// goes to, and which statuses a JSON POST there may get.
import type { Rng } from "./rng.ts";
import { type Base, BODY_LIMIT, type CaseEnv, type HttpCase, type Route } from "./types.ts";

export const JSON_HEADERS = { "content-type": "application/json" };

/** Statuses of a JSON POST on a route: public answers may also be rate-limited or refused. */
export function postExpect(route: Route, body: Buffer, chunked: boolean): number[] {
  if (!chunked && body.length > BODY_LIMIT) return route.public ? [413, 429] : [413];
  const out = [200];
  if (route.public) {
    out.push(429);
    if (body.includes("eth_getBlockReceipts")) out.push(403);
  }
  return out;
}

export function pickRoute(rng: Rng, env: CaseEnv): Route {
  if (env.dedicatedPath !== undefined && rng.chance(0.5))
    return { path: env.dedicatedPath, public: false };
  return { path: "/", public: true };
}

export function jsonPost(
  base: Base,
  route: Route,
  body: Buffer,
  extra: Partial<Pick<HttpCase, "expectId" | "chunked" | "mayDrop" | "headers">> = {},
): HttpCase {
  const chunked = extra.chunked ?? false;
  const c: HttpCase = {
    ...base,
    transport: "http",
    method: "POST",
    path: route.path,
    headers: extra.headers ?? JSON_HEADERS,
    body,
    chunked,
    expect: postExpect(route, body, chunked),
    jsonrpc: true,
    mayDrop: extra.mayDrop ?? false,
  };
  return extra.expectId === undefined ? c : { ...c, expectId: extra.expectId };
}

export function httpRequestBytes(
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
): Buffer {
  const lines = [`${method} ${path} HTTP/1.1`, "Host: 127.0.0.1"];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  return Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1"), body]);
}

export function postBytes(route: Route, body: Buffer): Buffer {
  return httpRequestBytes(
    "POST",
    route.path,
    { "Content-Type": "application/json", "Content-Length": String(body.length) },
    body,
  );
}
