// Process entry: picks the command, runs it, turns known errors into one clear line.

import { isOperatorError, StopRequested, UsageError } from "../util/errors.ts";
import { didYouMean } from "../util/nearestName.ts";
import { VERSION } from "../version.ts";

type Command = { run: (argv: string[]) => Promise<void>; help: string };

/**
 * Each command's module is loaded when it runs: a start loads only what its command needs (dev
 * never loads NATS or the importer), which is most of a start's time on this machine.
 */
const commands: Record<string, () => Promise<Command>> = {
  dev: () => import("./devCommand.ts").then((m) => ({ run: m.devCommand, help: m.DEV_HELP })),
  import: () =>
    import("./importCommand.ts").then((m) => ({ run: m.importCommand, help: m.IMPORT_HELP })),
  serve: () =>
    import("./serveCommand.ts").then((m) => ({ run: m.serveCommand, help: m.SERVE_HELP })),
  replica: () =>
    import("./replicaCommand.ts").then((m) => ({ run: m.replicaCommand, help: m.REPLICA_HELP })),
  follow: () =>
    import("./followCommand.ts").then((m) => ({ run: m.followCommand, help: m.FOLLOW_HELP })),
};

/** One line per command: what the top-level help shows (each command's own help has the rest). */
const SUMMARIES: Record<string, string> = {
  dev: "a local chain (what `npm start` runs): 200 ms flashblocks, 2 s blocks, test accounts",
  import: "executes an RLP chain file into an archive: --genesis G.json --datadir D chain.rlp",
  serve: "serves an archive read-only: --datadir D",
  replica:
    "follows a sequencer through NATS JetStream into an archive of its own: --nats URL --datadir D",
  follow: "follows a live chain (Base) and its flashblocks: --rpc URL --flashblocks WS_URL",
};

function overview(): string {
  const width = Math.max(...Object.keys(SUMMARIES).map((n) => n.length)) + 2;
  const lines = Object.entries(SUMMARIES).map(([name, line]) => `  ${name.padEnd(width)}${line}`);
  return `flashnode ${VERSION} — JSON-RPC node with flashblocks pre-confirmations and an embedded archive

Usage: flashnode <command> [flags]

Commands:
${lines.join("\n")}

A command's flags, each with that command's default: flashnode <command> --help (or
flashnode help <command>). Every flag is also a FLASHNODE_* variable and a --config key
(docs/config.md). flashnode --version prints the version.
`;
}

/** The command `name` names, or a usage error suggesting the nearest. */
function commandNamed(name: string): () => Promise<Command> {
  const load = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (load !== undefined) return load;
  if (name.startsWith("-"))
    throw new UsageError(
      `${name} before a command: the command comes first (flashnode dev|import|serve|replica|follow ${name} …); see flashnode --help`,
    );
  const hint = didYouMean(name, Object.keys(commands));
  throw new UsageError(`unknown command "${name}"${hint}; see flashnode --help`);
}

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    // No command is a usage mistake: the help goes to stderr and the exit code says so.
    process.stderr.write(
      `${overview()}\nflashnode: no command given (dev, import, serve, replica or follow)\n`,
    );
    process.exitCode = 2;
    return;
  }
  if (name === "help" && rest[0] !== undefined) {
    console.log((await commandNamed(rest[0])()).help);
    return;
  }
  if (name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(overview());
    return;
  }
  if (name === "--version") {
    console.log(VERSION);
    return;
  }
  const command = await commandNamed(name)();
  if (rest.includes("--help") || rest.includes("-h")) {
    console.log(command.help);
    return;
  }
  await command.run(rest);
}

try {
  await main(process.argv.slice(2));
} catch (e) {
  // Stopped by a signal before it served: what it had started is stopped already.
  if (e instanceof StopRequested) process.exit(0);
  if (isOperatorError(e))
    // One line, whatever the message quoted (a file's text, a nested error).
    console.error(`flashnode: ${e.message.replace(/\s*\n\s*/g, " ").trim()}`);
  else {
    // A bug, not a mistake of the operator's: the stack is what a report needs.
    console.error("flashnode: internal error (please report it with what follows)");
    console.error(e);
  }
  // Exit now: a half-started node may still hold handles (workers, sockets) open.
  process.exit(1);
}
