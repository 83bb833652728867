// The shape of the option table (optionTable.ts and the tables it gathers), and the types its
// values take once parsed: each table is declared `as const`, so a command reads its options
// with the types its kinds give (OptionValues), with no cast.

export type Command = "dev" | "serve" | "import" | "replica" | "follow";
type Kind = "string" | "boolean" | "int" | "duration" | "list" | "json" | "host" | "choice";

/** What each kind is once parsed (a duration in milliseconds; a choice narrowed below). */
type KindValue = {
  string: string;
  boolean: boolean;
  int: number;
  duration: number;
  list: readonly string[];
  json: unknown;
  host: string;
  choice: string;
};

type Plain = string | number | boolean | readonly string[];

/** A default that depends on the machine: its value at start, and how docs and help say it. */
export type MachineDefault = { readonly describe: string; readonly value: () => number };

export type OptionDef = {
  readonly name: string;
  readonly kind: Kind;
  readonly commands: readonly Command[];
  readonly help: string;
  /**
   * What the option is in one command, where that is its own (its default datadir, say): that
   * command's --help shows it after `help`.
   */
  readonly commandHelp?: Partial<Record<Command, string>>;
  /** Written as a user would (a duration as "2s"): parsed as given values are. */
  readonly default?: Plain | MachineDefault;
  /** A command's own default where it differs (dev is a local node: any origin, say). */
  readonly commandDefaults?: Partial<Record<Command, Plain>>;
  /** Environment variable, when not FLASHNODE_ + the upper-cased name. */
  readonly env?: string;
  /** Smallest value of an int option (default 0). */
  readonly min?: number;
  /** Largest value of an int option. */
  readonly max?: number;
  /** The unit of a duration given as a bare number (default ms). */
  readonly unit?: "s" | "ms";
  /** The values a choice option takes. */
  readonly choices?: readonly string[];
  /** A list whose flag values are comma-separated too, as its environment variable's. */
  readonly commaSeparated?: boolean;
};

/** The commands that run a node. */
export const NODE = ["dev", "serve", "replica", "follow"] as const;
export type NodeCommand = (typeof NODE)[number];

/** The options of `O` that every command of `C` takes (C may be a union: the shared ones). */
type TakenBy<O extends OptionDef, C extends Command> = O extends {
  readonly commands: readonly (infer Takes)[];
}
  ? [C] extends [Takes]
    ? O
    : never
  : never;

/** One option's parsed type: a choice narrowed to its choices. */
type Parsed<O> = O extends { readonly choices: readonly (infer V)[] }
  ? V
  : O extends { readonly kind: infer K extends Kind }
    ? KindValue[K]
    : never;

/** Always set where the option has a default (its own, or each command of C its command's). */
type ValueIn<O, C extends Command> = O extends { readonly default: unknown }
  ? Parsed<O>
  : O extends { readonly commandDefaults: infer D }
    ? [C] extends [keyof D]
      ? Parsed<O>
      : Parsed<O> | undefined
    : Parsed<O> | undefined;

/** The parsed options of command(s) C, by name, from the option union O (the table's). */
export type ValuesOf<O extends OptionDef, C extends Command> = {
  readonly [P in TakenBy<O, C> as P["name"]]: ValueIn<P, C>;
};
