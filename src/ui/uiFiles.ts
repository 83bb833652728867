// GET /ui: the live page, static files carried in the package (src/ui/static/), read once and
// served from memory by every process that serves HTTP. No build step and nothing fetched from
// elsewhere: the page's scripts, styles and icon come from this node, and its Content-Security-
// Policy allows only this origin and its WebSocket.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../util/packageRoot.ts";

export const UI_PATH = "/ui";

const TYPES: Readonly<Record<string, string>> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
};

/** The files of the page, by the name the page asks for (`/ui/<name>`). */
export const UI_FILES = [
  "index.html",
  "style.css",
  "app.js",
  "rpc.js",
  "wire.js",
  "chart.js",
  "view.js",
  "lookup.js",
  "favicon.svg",
] as const;

type UiFile = { readonly body: Buffer; readonly type: string; readonly etag: string };

function load(): ReadonlyMap<string, UiFile> {
  const files = new Map<string, UiFile>();
  for (const name of UI_FILES) {
    const body = readFileSync(join(PACKAGE_ROOT, "src/ui/static", name));
    const ext = name.slice(name.lastIndexOf(".") + 1);
    const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`;
    files.set(name, { body, type: TYPES[ext] ?? "application/octet-stream", etag });
  }
  return files;
}

// A Host header is the client's to choose: only a plain host[:port] goes into the policy.
const PLAIN_HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * Only this origin: scripts, styles, the icon, JSON-RPC over HTTP and the WebSocket (named
 * explicitly: not every browser counts ws: of the same host as 'self').
 */
export function contentSecurityPolicy(host: string | undefined): string {
  const ws = host !== undefined && PLAIN_HOST.test(host) ? ` ws://${host} wss://${host}` : "";
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    `connect-src 'self'${ws}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** The file a path under /ui names: the page itself for /ui and /ui/. */
function fileName(path: string): string | undefined {
  if (path === UI_PATH || path === `${UI_PATH}/`) return "index.html";
  const name = path.slice(UI_PATH.length + 1);
  return (UI_FILES as readonly string[]).includes(name) ? name : undefined;
}

/** Whether a request path is the page's (the caller routes it here). */
export function isUiPath(path: string): boolean {
  return path === UI_PATH || path.startsWith(`${UI_PATH}/`);
}

/**
 * Serves GET and HEAD under /ui; other methods get 405. Revalidated on every load
 * (`no-cache` + ETag): the file names carry no version, and a node upgrade changes them.
 */
export function createUiHandler(): (
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
) => void {
  const files = load();
  return (req, res, path) => {
    res.on("error", () => {});
    const common = {
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "x-frame-options": "DENY",
    };
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { ...common, allow: "GET, HEAD", "content-length": 0 });
      return void res.end();
    }
    const name = fileName(path);
    const file = name === undefined ? undefined : files.get(name);
    if (file === undefined) {
      const body = "not found\n";
      res.writeHead(404, {
        ...common,
        "content-type": "text/plain; charset=utf-8",
        "content-length": Buffer.byteLength(body),
      });
      return void res.end(req.method === "HEAD" ? undefined : body);
    }
    const headers = {
      ...common,
      "content-type": file.type,
      "cache-control": "no-cache",
      etag: file.etag,
      "content-security-policy": contentSecurityPolicy(req.headers.host),
    };
    if (req.headers["if-none-match"] === file.etag) {
      res.writeHead(304, headers);
      return void res.end();
    }
    res.writeHead(200, { ...headers, "content-length": file.body.length });
    res.end(req.method === "HEAD" ? undefined : file.body);
  };
}
