// One option's raw value (flag, FLASHNODE_* variable or config file) checked and converted, and
// node:util parseArgs errors rewritten: every mistake is one line naming the flag, found before
// the command creates anything on disk.
import { isIP } from "node:net";
import { UsageError } from "../util/errors.ts";
import { didYouMean } from "../util/nearestName.ts";
import { jsonErrorReason } from "./args.ts";
import type { Command, OptionDef } from "./optionTable.ts";

/** A value parsed by its kind; OptionValues (optionTable.ts) says which type each option has. */
export type OptionValue = unknown;

/** Where a bad value came from, unless it is the flag itself (the message names the flag). */
function originPrefix(origin: string): string {
  return origin === "flag" ? "" : `${origin}: `;
}

// RFC 1123 labels, dot-separated: what a listen address that is not an IP literal can be.
const HOST_NAME =
  /^(?=.{1,253}\.?$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

/** A listen address: an IPv4/IPv6 literal or a host name (resolved when the port is probed). */
export function isListenHost(host: string): boolean {
  return isIP(host) !== 0 || HOST_NAME.test(host);
}

export function coerce(def: OptionDef, raw: unknown, origin: string): OptionValue {
  const prefix = originPrefix(origin);
  // `--datadir ""` or `--host ""` would mean the current directory or every interface: asked
  // for by mistake far more often than on purpose.
  if (def.kind !== "boolean" && typeof raw === "string" && raw.trim() === "")
    throw new UsageError(`${prefix}--${def.name} needs a value (got an empty string)`);
  switch (def.kind) {
    case "boolean":
      if (typeof raw === "boolean") return raw;
      if (raw === "1" || raw === "true") return true;
      if (raw === "0" || raw === "false" || raw === "") return false;
      throw new UsageError(`${prefix}--${def.name} must be true or false`);
    case "int": {
      const n = typeof raw === "number" ? raw : Number(raw);
      const min = def.min ?? 0;
      const range = def.max === undefined ? `≥ ${min}` : `from ${min} to ${def.max}`;
      if (!Number.isSafeInteger(n) || n < min || (def.max !== undefined && n > def.max))
        throw new UsageError(
          `${prefix}--${def.name} must be a whole number ${range}, got ${String(raw)}`,
        );
      return n;
    }
    case "host": {
      const host = String(raw).trim();
      if (!isListenHost(host))
        throw new UsageError(
          `${prefix}--${def.name} must be an IP address or a host name, got "${host}"` +
            (/^\[.*\]$/.test(host) ? " (write an IPv6 address without brackets)" : ""),
        );
      return host;
    }
    case "duration":
      return durationMs(def, raw, prefix);
    case "choice": {
      const choices = def.choices ?? [];
      const value = String(raw).trim();
      if (!choices.includes(value))
        throw new UsageError(
          `${prefix}--${def.name} must be one of ${choices.join(", ")}, got ${value}`,
        );
      return value;
    }
    case "list": {
      const split = (v: unknown) =>
        String(v)
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean);
      const list = Array.isArray(raw)
        ? def.commaSeparated === true
          ? raw.flatMap(split)
          : raw.map(String)
        : split(raw);
      if (list.some((item) => item.trim() === ""))
        throw new UsageError(`${prefix}--${def.name} needs a value (got an empty string)`);
      return list;
    }
    case "json":
      if (typeof raw !== "string") return raw;
      try {
        return JSON.parse(raw);
      } catch (e) {
        throw new UsageError(`${prefix}--${def.name} must be JSON: ${jsonErrorReason(e, raw)}`);
      }
    default:
      return String(raw);
  }
}

const DURATION_UNITS_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** "2s", "200ms", "1.5s", "10m", "24h", or a bare number in the option's unit (ms unless said); → ms. */
function durationMs(def: OptionDef, raw: unknown, prefix: string): number {
  const bareUnit = def.unit ?? "ms";
  if (typeof raw === "number" && Number.isFinite(raw) && raw >= 0)
    return Math.round(raw * DURATION_UNITS_MS[bareUnit]);
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(String(raw).trim());
  if (m === null)
    throw new UsageError(
      `${prefix}--${def.name} must be a duration like 2s, 200ms, 10m or 24h, got ${String(raw)}`,
    );
  const unit = (m[2] ?? bareUnit) as keyof typeof DURATION_UNITS_MS;
  return Math.round(Number(m[1]) * DURATION_UNITS_MS[unit]);
}

/** node:util's parseArgs errors, as one line that names the command and suggests a flag. */
export function parseArgsMessage(
  e: Error & { code?: string },
  command: Command,
  defs: readonly OptionDef[],
): string {
  const flag = /'(-{1,2}[^' ]+)/.exec(e.message)?.[1];
  const help = `see flashnode ${command} --help`;
  if (e.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && flag !== undefined) {
    const names = defs.map((d) => d.name);
    const hint = didYouMean(flag.replace(/^-+/, "").split("=")[0]!, names, "--");
    return `unknown flag ${flag} for ${command}${hint}; ${help}`;
  }
  if (e.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && flag !== undefined) {
    // parseArgs says which of three mistakes it was only in its message.
    if (e.message.includes("does not take an argument"))
      return `${flag} takes no value (it is on or off; write ${flag} or leave it out); ${help}`;
    if (e.message.includes("ambiguous"))
      return `${flag} needs a value (one starting with - is written ${flag}=-…); ${help}`;
    return `${flag} needs a value; ${help}`;
  }
  return e.message.split("\n")[0]!;
}
