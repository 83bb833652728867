// `flashnode dev` (what `npm start` runs): a local chain with a sequencer, 200 ms flashblocks,
// 2 s blocks, prefunded test accounts, and JSON-RPC over HTTP and WebSocket.
import { join } from "node:path";
import { DEV_FORKS, DEV_MNEMONIC, type DevFork } from "../chain/devGenesis.ts";
import { DEFAULT_DEV_OPTIONS, startDevNode } from "../node/devNode.ts";
import { parseFlags, portFlag, stringFlag, UsageError } from "./args.ts";

export const DEV_HELP = `flashnode dev [flags]

Runs a local chain like Base with flashblocks: a sequencer executes submitted transactions with
the EVM, publishes a flashblock every --flashblock-interval (the "pending" view and the
/flashblocks WebSocket stream) and seals a block every --block-time into the archive.

  --datadir DIR               data directory (default ./.flashnode/dev)        env FLASHNODE_DATADIR
  --fresh                     delete the datadir first and start a new chain   env FLASHNODE_FRESH
  --host HOST                 listen address (default 127.0.0.1)               env FLASHNODE_HOST
  --port PORT                 listen port (default 8545)                       env FLASHNODE_PORT
  --chain-id N                chain id of a new chain (default 31337)          env FLASHNODE_CHAIN_ID
  --fork NAME                 ${DEV_FORKS.join(" | ")} (default osaka)              env FLASHNODE_FORK
  --genesis FILE              geth genesis for a new chain instead of the above env FLASHNODE_GENESIS
  --block-time DUR            block time, e.g. 2s, 500ms (default 2s)          env FLASHNODE_BLOCK_TIME
  --flashblock-interval DUR   flashblock cadence (default 200ms)               env FLASHNODE_FLASHBLOCK_INTERVAL
  --gas-limit N               block gas limit (default 60000000)               env FLASHNODE_GAS_LIMIT
  --accounts N                prefunded accounts (default 10)                  env FLASHNODE_ACCOUNTS
  --balance ETH               balance of each (default 10000)                  env FLASHNODE_BALANCE

Accounts come from the mnemonic "${DEV_MNEMONIC}" (m/44'/60'/0'/0/i).
State persists in the datadir; restarting continues the chain.
`;

/** "2s", "200ms", "1.5s"; a bare number is in `bareUnit`. */
export function parseDuration(
  flag: string,
  value: string | undefined,
  fallbackMs: number,
  bareUnit: "s" | "ms",
): number {
  if (value === undefined) return fallbackMs;
  const m = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(value.trim());
  if (m === null)
    throw new UsageError(`--${flag} must be a duration like 2s or 200ms, got ${value}`);
  const ms = Number(m[1]) * ((m[2] ?? bareUnit) === "s" ? 1000 : 1);
  if (!(ms >= 1)) throw new UsageError(`--${flag} must be at least 1ms`);
  return Math.round(ms);
}

function bigFlag(name: string, value: string | undefined, fallback: bigint): bigint {
  if (value === undefined) return fallback;
  if (!/^(0x[0-9a-fA-F]+|\d+)$/.test(value))
    throw new UsageError(`--${name} must be an integer, got ${value}`);
  return BigInt(value);
}

export async function devCommand(argv: string[]): Promise<void> {
  const args = parseFlags(argv, {
    datadir: { type: "string" },
    fresh: { type: "boolean" },
    host: { type: "string" },
    port: { type: "string" },
    "chain-id": { type: "string" },
    fork: { type: "string" },
    genesis: { type: "string" },
    "block-time": { type: "string" },
    "flashblock-interval": { type: "string" },
    "gas-limit": { type: "string" },
    accounts: { type: "string" },
    balance: { type: "string" },
    "log-level": { type: "string" },
    "api-key": { type: "string", multiple: true },
  });
  const fork = (stringFlag(args, "fork") ?? DEFAULT_DEV_OPTIONS.fork) as DevFork;
  if (!DEV_FORKS.includes(fork))
    throw new UsageError(`--fork must be one of ${DEV_FORKS.join(", ")}`);
  const blockTimeMs = parseDuration(
    "block-time",
    stringFlag(args, "block-time"),
    DEFAULT_DEV_OPTIONS.blockTimeMs,
    "s",
  );
  const flashblockIntervalMs = parseDuration(
    "flashblock-interval",
    stringFlag(args, "flashblock-interval"),
    DEFAULT_DEV_OPTIONS.flashblockIntervalMs,
    "ms",
  );
  if (flashblockIntervalMs > blockTimeMs)
    throw new UsageError("--flashblock-interval must not exceed --block-time");
  const datadir = stringFlag(args, "datadir") ?? join(process.cwd(), ".flashnode", "dev");
  const node = await startDevNode({
    datadir,
    fresh: args.values.fresh === true,
    host: stringFlag(args, "host") ?? DEFAULT_DEV_OPTIONS.host,
    port: portFlag(args, "port", DEFAULT_DEV_OPTIONS.port),
    chainId: bigFlag("chain-id", stringFlag(args, "chain-id"), DEFAULT_DEV_OPTIONS.chainId),
    fork,
    genesisFile: stringFlag(args, "genesis"),
    blockTimeMs,
    flashblockIntervalMs,
    gasLimit: bigFlag("gas-limit", stringFlag(args, "gas-limit"), DEFAULT_DEV_OPTIONS.gasLimit),
    accounts: Number(
      bigFlag("accounts", stringFlag(args, "accounts"), BigInt(DEFAULT_DEV_OPTIONS.accounts)),
    ),
    balanceEth: bigFlag("balance", stringFlag(args, "balance"), DEFAULT_DEV_OPTIONS.balanceEth),
  });
  const lines = [
    "",
    "flashnode dev",
    "",
    "Available Accounts",
    "==================",
    ...node.accounts.map((a, i) => `(${i}) ${a.address}`),
    "",
    "Private Keys",
    "==================",
    ...node.accounts.map((a, i) => `(${i}) ${a.privateKey}`),
    "",
    `Mnemonic: ${DEV_MNEMONIC}`,
    "",
    `Chain ID: ${node.chainId}    block time: ${blockTimeMs} ms    flashblocks every ${flashblockIntervalMs} ms`,
    `Data: ${datadir}`,
    "",
    `JSON-RPC (public):   ${node.url}`,
    `WebSocket:           ${node.wsUrl}`,
    `Flashblocks stream:  ${node.wsUrl}flashblocks`,
    "",
  ];
  console.log(lines.join("\n"));
  const stop = () => {
    void node.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
