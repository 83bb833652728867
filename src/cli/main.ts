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

async function help(): Promise<string> {
  const [dev, imp, serve, replica, follow] = await Promise.all(
    ["dev", "import", "serve", "replica", "follow"].map((name) => commands[name]!()),
  );
  return `flashnode ${VERSION} — JSON-RPC node with flashblocks pre-confirmations and an embedded archive

Usage:
  flashnode dev      [flags]   local chain (what \`npm start\` runs): a sequencer, 200 ms flashblocks,
                               2 s blocks, prefunded test accounts, JSON-RPC over HTTP and WebSocket
  flashnode import   --genesis G.json --datadir D [--forkchoice F.json] chain.rlp
  flashnode serve    --datadir D [--host H] [--port P]
  flashnode replica  --nats URL --datadir D   follow a sequencer through NATS JetStream
  flashnode follow   --rpc URL --flashblocks WS_URL   follow a live chain (Base) and its flashblocks
  flashnode --help | <command> --help

${dev!.help}
${imp!.help}
${serve!.help}
${replica!.help}
${follow!.help}`;
}

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    // No command is a usage mistake: the help goes to stderr and the exit code says so.
    process.stderr.write(
      `${await help()}\nflashnode: no command given (dev, import, serve, replica or follow)\n`,
    );
    process.exitCode = 2;
    return;
  }
  if (name === "--help" || name === "-h" || name === "help") {
    console.log(await help());
    return;
  }
  if (name === "--version") {
    console.log(VERSION);
    return;
  }
  const load = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (load === undefined) {
    if (name.startsWith("-"))
      throw new UsageError(
        `${name} before a command: the command comes first (flashnode dev|import|serve|replica|follow ${name} …); see flashnode --help`,
      );
    const hint = didYouMean(name, Object.keys(commands));
    throw new UsageError(`unknown command "${name}"${hint}; see flashnode --help`);
  }
  const command = await load();
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
