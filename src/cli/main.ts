// Process entry: picks the command, runs it, turns known errors into one clear line.

import { isOperatorError, UsageError } from "../util/errors.ts";
import { didYouMean } from "../util/nearestName.ts";
import { VERSION } from "../version.ts";
import { DEV_HELP, devCommand } from "./devCommand.ts";
import { FOLLOW_HELP, followCommand } from "./followCommand.ts";
import { IMPORT_HELP, importCommand } from "./importCommand.ts";
import { REPLICA_HELP, replicaCommand } from "./replicaCommand.ts";
import { SERVE_HELP, serveCommand } from "./serveCommand.ts";

const HELP = `flashnode ${VERSION} — JSON-RPC node with flashblocks pre-confirmations and an embedded archive

Usage:
  flashnode dev      [flags]   local chain (what \`npm start\` runs): a sequencer, 200 ms flashblocks,
                               2 s blocks, prefunded test accounts, JSON-RPC over HTTP and WebSocket
  flashnode import   --genesis G.json --datadir D [--forkchoice F.json] chain.rlp
  flashnode serve    --datadir D [--host H] [--port P]
  flashnode replica  --nats URL --datadir D   follow a sequencer through NATS JetStream
  flashnode follow   --rpc URL --flashblocks WS_URL   follow a live chain (Base) and its flashblocks
  flashnode --help | <command> --help

${DEV_HELP}
${IMPORT_HELP}
${SERVE_HELP}
${REPLICA_HELP}
${FOLLOW_HELP}`;

const commands: Record<string, { run: (argv: string[]) => Promise<void>; help: string }> = {
  dev: { run: devCommand, help: DEV_HELP },
  import: { run: importCommand, help: IMPORT_HELP },
  serve: { run: serveCommand, help: SERVE_HELP },
  replica: { run: replicaCommand, help: REPLICA_HELP },
  follow: { run: followCommand, help: FOLLOW_HELP },
};

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    // No command is a usage mistake: the help goes to stderr and the exit code says so.
    process.stderr.write(
      `${HELP}\nflashnode: no command given (dev, import, serve, replica or follow)\n`,
    );
    process.exitCode = 2;
    return;
  }
  if (name === "--help" || name === "-h" || name === "help") {
    console.log(HELP);
    return;
  }
  if (name === "--version") {
    console.log(VERSION);
    return;
  }
  const command = commands[name];
  if (command === undefined) {
    if (name.startsWith("-"))
      throw new UsageError(
        `${name} before a command: the command comes first (flashnode dev|import|serve|replica|follow ${name} …); see flashnode --help`,
      );
    const hint = didYouMean(name, Object.keys(commands));
    throw new UsageError(`unknown command "${name}"${hint}; see flashnode --help`);
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    console.log(command.help);
    return;
  }
  await command.run(rest);
}

try {
  await main(process.argv.slice(2));
} catch (e) {
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
