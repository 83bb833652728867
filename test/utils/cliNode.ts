// A node started as users start it: `bin/flashnode.js <command> …` in a child process (what
// `npm start` and `npx flashnode` run), ready once its banner names its URLs.
import { type ChildProcessByStdio, spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { BIN } from "./fixtures.ts";

export type CliNode = {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  /** The banner's public and dedicated JSON-RPC URLs. */
  readonly url: string;
  readonly dedicatedUrl: string;
  /** Everything printed so far, stdout and stderr. */
  output(): string;
  /** SIGINT, as Ctrl-C; resolves with the exit code once the process is gone. */
  stop(): Promise<number | null>;
};

const DEDICATED = /JSON-RPC \(dedicated\):\s+(\S+)/;
const PUBLIC = /JSON-RPC \(public\):\s+(\S+)/;

/** Starts `args` with `node` (the Node binary to run it with; default this one). */
export function startCliNode(
  args: readonly string[],
  opts: { readonly node?: string; readonly env?: NodeJS.ProcessEnv } = {},
): Promise<CliNode> {
  const child = spawn(opts.node ?? process.execPath, [BIN, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: opts.env ?? process.env,
  });
  let out = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const node: CliNode = {
    child,
    url: "",
    dedicatedUrl: "",
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
      return exited;
    },
  };
  return new Promise((resolve, reject) => {
    const onData = (c: Buffer) => {
      out += c.toString();
      const dedicated = DEDICATED.exec(out)?.[1];
      const url = PUBLIC.exec(out)?.[1];
      if (url === undefined || dedicated === undefined) return;
      child.stdout.off("data", onData);
      child.stdout.on("data", (more: Buffer) => {
        out += more.toString();
      });
      resolve({ ...node, url, dedicatedUrl: dedicated });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", (c: Buffer) => {
      out += c.toString();
    });
    void exited.then((code) =>
      reject(new Error(`flashnode ${args.join(" ")} exited (${code}) before serving:\n${out}`)),
    );
  });
}

/** POSTs a JSON-RPC body; the HTTP status, headers and parsed answer. */
export async function postRpc(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: unknown }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    json: text === "" ? undefined : JSON.parse(text),
  };
}

/** `dev` flags for a node that seals only on evm_mine: reads between two calls see one block. */
export const SEALS_ON_MINE = ["--block-time", "600s", "--flashblock-interval", "50ms"] as const;

/**
 * `flashnode <command>` on `datadir` as the multi-process tests run it: two RPC reader
 * processes, `key` for the dedicated tier, warnings only in the log; `flags` add the rest.
 */
export function startReadersNode(
  command: "dev" | "serve",
  datadir: string,
  key: string,
  flags: readonly string[] = [],
): Promise<CliNode> {
  return startCliNode([
    command,
    ...["--datadir", datadir, "--port", "0", "--rpc-workers", "2", "--api-key", key],
    ...flags,
    ...["--log-level", "warn"],
  ]);
}
