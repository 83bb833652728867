// The options of a command resolved from the table in optionTable.ts: each value comes from its
// flag, else its FLASHNODE_* variable, else the config file, else its default, and is parsed
// here, once, by its kind (a duration into milliseconds); `--help` is generated from the same table.
import { parseArgs } from "node:util";
import { UsageError } from "../util/errors.ts";
import { didYouMean } from "../util/nearestName.ts";
import { readJsonFile } from "./args.ts";
import { type Command, OPTIONS, type OptionDef, type OptionValues } from "./optionTable.ts";
import type { MachineDefault } from "./optionTypes.ts";
import { coerce, type OptionValue, parseArgsMessage } from "./optionValues.ts";

/** The positional arguments each command takes, by name (more are a usage error). */
const POSITIONALS: Record<Command, readonly string[]> = {
  dev: [],
  serve: [],
  import: ["chain.rlp"],
  replica: [],
  follow: [],
};

/**
 * Names that are not options, and what to use instead: refused as flags, `FLASHNODE_*` variables
 * and config keys with that hint, rather than as unknown (or, for a variable, ignored).
 */
const RETIRED: Readonly<Record<string, { commands: readonly Command[]; use: string }>> = {
  // anvil's --fork-url forks a live chain; dev's --fork was the hardfork until it was renamed
  // --hardfork (anvil's name), and a --fork that still meant it would be a trap.
  fork: {
    commands: ["dev"],
    use: "the hardfork is --hardfork (cancun, prague, osaka); to fork a live chain, --fork-url URL",
  },
};

/** What to use instead of a retired name given to `command` (`--name`, `--name=…` or `name`). */
function retired(command: Command, name: string | undefined): string | undefined {
  const r = RETIRED[name?.replace(/^-+/, "").split("=")[0] ?? ""];
  return r?.commands.includes(command) ? r.use : undefined;
}

export type ResolvedOptions<C extends Command> = {
  /** Every option of the command parsed by its kind, typed by the table (optionTable.ts). */
  readonly values: OptionValues<C>;
  readonly positionals: readonly string[];
  /** The options given (a flag, the environment or the config file), not defaulted. */
  readonly given: ReadonlySet<string>;
};

export function envName(name: string): string {
  const override = OPTIONS.find((o) => o.name === name)?.env;
  if (override !== undefined) return override;
  return `FLASHNODE_${name.replace(/-/g, "_").toUpperCase()}`;
}

export function resolveOptions<C extends Command>(
  command: C,
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): ResolvedOptions<C> {
  const defs = OPTIONS.filter((o) => o.commands.includes(command));
  const spec: Record<string, { type: "string" | "boolean"; multiple?: boolean }> = {};
  for (const d of defs)
    spec[d.name] =
      d.kind === "boolean"
        ? { type: "boolean" }
        : d.kind === "list"
          ? { type: "string", multiple: true }
          : { type: "string" };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options: spec, allowPositionals: true, strict: true });
  } catch (e) {
    const err = e as Error & { code?: string };
    const flag = /'(-{1,2}[^' ]+)/.exec(err.message)?.[1];
    const use = err.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? retired(command, flag) : undefined;
    throw new UsageError(
      use === undefined ? parseArgsMessage(err, command, defs) : `${flag} is not a flag: ${use}`,
    );
  }
  for (const name of Object.keys(RETIRED)) {
    const use = retired(command, name);
    const fromEnv = env[envName(name)];
    if (use !== undefined && fromEnv !== undefined && fromEnv !== "")
      throw new UsageError(`${envName(name)} is not read: ${use}`);
  }
  const wanted = POSITIONALS[command];
  if (parsed.positionals.length > wanted.length) {
    const extra = parsed.positionals.slice(wanted.length).join(" ");
    const takes = wanted.length === 0 ? "takes no arguments" : `takes only ${wanted.join(" ")}`;
    throw new UsageError(`${command} ${takes} (got ${extra}); see flashnode ${command} --help`);
  }
  const configPath = (parsed.values.config as string | undefined) ?? env[envName("config")];
  let file: Record<string, unknown> = {};
  if (configPath !== undefined && configPath !== "") {
    const json = readJsonFile("config", configPath);
    if (typeof json !== "object" || json === null || Array.isArray(json))
      throw new UsageError(`--config ${configPath}: expected a JSON object of option names`);
    file = json as Record<string, unknown>;
    const names = defs.map((d) => d.name);
    for (const key of Object.keys(file)) {
      const use = retired(command, key);
      if (use !== undefined)
        throw new UsageError(`--config ${configPath}: "${key}" is not an option: ${use}`);
      if (!names.includes(key))
        throw new UsageError(
          `--config ${configPath}: unknown option "${key}" for ${command}${didYouMean(key, names)}`,
        );
    }
  }
  const values: Record<string, OptionValue> = {};
  const given = new Set<string>();
  for (const d of defs) {
    const flag = parsed.values[d.name];
    const fromEnv = env[envName(d.name)];
    if (flag !== undefined) values[d.name] = coerce(d, flag, "flag");
    else if (fromEnv !== undefined && fromEnv !== "")
      values[d.name] = coerce(d, fromEnv, envName(d.name));
    else if (file[d.name] !== undefined)
      values[d.name] = coerce(d, file[d.name], `config ${configPath}`);
    else {
      // A default is written as a user would write it, and parsed the same way.
      const dflt = defaultOf(d, command);
      if (dflt !== undefined)
        values[d.name] = coerce(d, isMachineDefault(dflt) ? dflt.value() : dflt, "default");
      continue;
    }
    given.add(d.name);
  }
  // The one place the table's types are trusted: every value above went through coerce() for
  // its option's kind, and every option with a default has one (OptionValues says which).
  return { values: values as OptionValues<C>, positionals: parsed.positionals, given };
}

export function isMachineDefault(v: OptionDef["default"]): v is MachineDefault {
  return typeof v === "object" && !Array.isArray(v);
}

/** An option's default for a command: the command's own, else the option's. */
export function defaultOf(def: OptionDef, command: Command): OptionDef["default"] {
  return def.commandDefaults?.[command] ?? def.default;
}

/** An option's help line as --help and docs/config.md say it: a choice's choices first, from the table. */
export function helpText(def: OptionDef): string {
  return def.choices === undefined ? def.help : `${def.choices.join(" | ")}: ${def.help}`;
}

/** A default as help and docs write it (a machine's default by what it depends on). */
export function defaultText(value: NonNullable<OptionDef["default"]>): string {
  if (isMachineDefault(value)) return value.describe;
  return Array.isArray(value) ? value.join(",") : String(value);
}

export function helpFor(command: Command): string {
  const defs = OPTIONS.filter((o) => o.commands.includes(command));
  const width = Math.max(...defs.map((d) => d.name.length)) + 4;
  return defs
    .map((d) => {
      const value = defaultOf(d, command);
      const dflt =
        value === undefined
          ? ""
          : isMachineDefault(value)
            ? ` (default ${value.describe}: ${value.value()} here)`
            : ` (default ${defaultText(value)})`;
      const own = d.commandHelp?.[command];
      const help = own === undefined ? helpText(d) : `${helpText(d)}; ${own}`;
      return `  --${d.name.padEnd(width)}${help}${dflt}\n  ${" ".repeat(width + 2)}env ${envName(d.name)}`;
    })
    .join("\n");
}
