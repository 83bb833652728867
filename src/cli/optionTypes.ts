// The shape of the option table (optionTable.ts and the tables it gathers).

export type Command = "dev" | "serve" | "import" | "replica" | "follow";
type Kind = "string" | "boolean" | "int" | "duration" | "list" | "json" | "host";

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
  readonly default?: string | number | boolean | readonly string[];
  /** A command's own default where it differs (dev is a local node: any origin, say). */
  readonly commandDefaults?: Partial<
    Record<Command, string | number | boolean | readonly string[]>
  >;
  /** Environment variable, when not FLASHNODE_ + the upper-cased name. */
  readonly env?: string;
  /** Smallest value of an int option (default 0). */
  readonly min?: number;
  /** Largest value of an int option. */
  readonly max?: number;
  /** A list whose flag values are comma-separated too, as its environment variable's. */
  readonly commaSeparated?: boolean;
};

/** The commands that run a node. */
export const NODE: readonly Command[] = ["dev", "serve", "replica", "follow"];
