// Command-line flags, each with a FLASHNODE_<FLAG> environment fallback (flag wins).
import { parseArgs } from "node:util";

export class UsageError extends Error {
  readonly code = "USAGE";
}

export type FlagSpec = Record<
  string,
  { type: "string" | "boolean"; multiple?: boolean; short?: string }
>;

export type ParsedArgs = {
  readonly values: Record<string, string | boolean | string[] | undefined>;
  readonly positionals: string[];
};

function envName(flag: string): string {
  return `FLASHNODE_${flag.replace(/-/g, "_").toUpperCase()}`;
}

export function parseFlags(
  argv: string[],
  spec: FlagSpec,
  env: NodeJS.ProcessEnv = process.env,
): ParsedArgs {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options: spec, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const values = { ...parsed.values } as Record<string, string | boolean | string[] | undefined>;
  for (const [flag, def] of Object.entries(spec)) {
    if (values[flag] !== undefined) continue;
    const fromEnv = env[envName(flag)];
    if (fromEnv === undefined || fromEnv === "") continue;
    if (def.type === "boolean") values[flag] = fromEnv === "1" || fromEnv.toLowerCase() === "true";
    else
      values[flag] = def.multiple
        ? fromEnv
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean)
        : fromEnv;
  }
  return { values, positionals: parsed.positionals };
}

export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const v = args.values[name];
  return typeof v === "string" ? v : undefined;
}

export function portFlag(args: ParsedArgs, name: string, fallback: number): number {
  const v = stringFlag(args, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new UsageError(`--${name} must be a port number (0-65535), got ${v}`);
  return n;
}
