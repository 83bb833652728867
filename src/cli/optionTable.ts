// Every option of every command, in one table: its flag, its FLASHNODE_* variable, its config
// file key, its default and its help line. options.ts resolves them (flag > environment > config
// file > default) and writes `--help` from them; docs/config.md is kept in step with this table.
import { availableParallelism } from "node:os";
import { DEFAULT_FINALIZED_DEPTH, DEFAULT_SAFE_DEPTH } from "../chain/forkchoice.ts";
import { DEFAULT_FORK_DEPTH } from "../upstream/forkPoint.ts";

export type Command = "dev" | "serve" | "import" | "replica" | "follow";
type Kind = "string" | "boolean" | "int" | "duration" | "list" | "json" | "host";

export type OptionDef = {
  readonly name: string;
  readonly kind: Kind;
  readonly commands: readonly Command[];
  readonly help: string;
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
};

const NODE: readonly Command[] = ["dev", "serve", "replica", "follow"];

/** One RPC process per core, up to 4 (the default of --rpc-workers). */
export function defaultRpcWorkers(): number {
  return Math.min(availableParallelism(), 4);
}

export const OPTIONS: readonly OptionDef[] = [
  {
    name: "config",
    kind: "string",
    commands: ["dev", "serve", "import", "replica", "follow"],
    help: "JSON config file; keys are these option names",
  },
  {
    name: "datadir",
    kind: "string",
    commands: ["dev", "serve", "import", "replica", "follow"],
    help: "data directory (dev default ./.flashnode/dev; dev continues the chain it holds, its own or one made by flashnode import)",
  },
  {
    name: "log-level",
    kind: "string",
    commands: ["dev", "serve", "import", "replica", "follow"],
    default: "info",
    help: "trace, debug, info, warn, error, silent",
  },
  {
    name: "host",
    kind: "host",
    commands: NODE,
    default: "127.0.0.1",
    help: "listen address: an IP address or a host name (0.0.0.0: every interface)",
  },
  {
    name: "port",
    kind: "int",
    commands: NODE,
    default: 8545,
    max: 65535,
    help: "listen port, 0 to 65535 (0 = any free port)",
  },
  {
    name: "api-key",
    kind: "list",
    commands: NODE,
    env: "FLASHNODE_API_KEYS",
    help: "dedicated endpoint key, 8-128 characters of A-Z a-z 0-9 _ -, served at /rpc/<key> (repeatable; env: comma-separated). None given: dev on a loopback --host serves local-dev-key, otherwise one is generated; printed at start",
  },
  {
    name: "rate-limit",
    kind: "int",
    commands: NODE,
    default: 200,
    help: "public endpoint: calls per second per client address (0 = unlimited); a batch counts its calls",
  },
  {
    name: "rate-burst",
    kind: "int",
    commands: NODE,
    default: 400,
    help: "public endpoint: token bucket size per client address",
  },
  {
    name: "rate-limit-loopback",
    kind: "boolean",
    commands: NODE,
    default: true,
    commandDefaults: { dev: false },
    help: "the public rate limit applies to clients on this machine (127.0.0.0/8, ::1) too; dev leaves them unlimited unless this is given (a local node), serve and replica limit them (a proxy in front makes every client local)",
  },
  {
    name: "key-rate-limit",
    kind: "int",
    commands: NODE,
    default: 0,
    help: "dedicated endpoints: calls per second per key (0 = unlimited); per-key limits in --key-limits",
  },
  {
    name: "key-limits",
    kind: "json",
    commands: NODE,
    help: 'per-key limits {"<key>":{"rate":N,"burst":N}} for keys given with --api-key (overrides --key-rate-limit for those keys)',
  },
  {
    name: "policy",
    kind: "json",
    commands: NODE,
    help: 'method policy {"public":[rules],"dedicated":[rules]}, rule = {"method","action":"allow"|"deny","selectors"?} (a method not served is refused at start); default denies eth_getBlockReceipts on public',
  },
  {
    name: "cors",
    kind: "list",
    commands: NODE,
    commandDefaults: { dev: ["*"] },
    help: 'allowed CORS origins ("*" for any); serve and replica unset: no CORS headers; dev: any origin, as anvil (--cors narrows it)',
  },
  {
    name: "body-limit",
    kind: "int",
    commands: NODE,
    default: 5 * 1024 * 1024,
    help: "max request body bytes (HTTP 413 above)",
  },
  { name: "batch-limit", kind: "int", commands: NODE, default: 1000, help: "max calls in a batch" },
  {
    name: "response-limit",
    kind: "int",
    commands: NODE,
    default: 25_000_000,
    help: "max bytes of a batch's results; later calls get -32003",
  },
  {
    name: "request-timeout",
    kind: "duration",
    commands: NODE,
    default: "30s",
    help: "per request; past it the answer is -32002 request timed out",
  },
  {
    name: "header-timeout",
    kind: "duration",
    commands: NODE,
    default: "10s",
    help: "time a client has to send its request headers",
  },
  {
    name: "read-timeout",
    kind: "duration",
    commands: NODE,
    default: "30s",
    help: "time a client has to send a whole request",
  },
  {
    name: "idle-timeout",
    kind: "duration",
    commands: NODE,
    default: "120s",
    help: "keep-alive connections idle longer are closed",
  },
  {
    name: "max-connections",
    kind: "int",
    commands: NODE,
    default: 1024,
    help: "connections beyond this are refused",
  },
  {
    name: "rpc-gascap",
    kind: "int",
    commands: NODE,
    default: 50_000_000,
    help: "most gas eth_call, eth_estimateGas and eth_createAccessList may use; a request's gas above it is lowered to it (0 = no cap; geth's --rpc.gascap)",
  },
  {
    name: "rpc-evmtimeout",
    kind: "duration",
    commands: NODE,
    default: "5s",
    help: "eth_call is aborted past this (-32000 execution aborted (timeout = 5s)); 0 = no limit (geth's --rpc.evmtimeout; bare number: seconds)",
  },
  {
    name: "rpc-workers",
    kind: "int",
    commands: NODE,
    max: 64,
    // A local node starts in a second with one (each reader process loads the node again).
    commandDefaults: { dev: 1 },
    help: "processes serving RPC from the one archive, sharing the port, rate limits and metrics (serve, replica: one per core, at most 4, by default)",
  },
  {
    name: "fresh",
    kind: "boolean",
    commands: ["dev"],
    default: false,
    help: "delete the datadir first and start a new chain",
  },
  {
    name: "chain-id",
    kind: "int",
    commands: ["dev"],
    min: 1,
    default: 31337,
    help: "chain id of a new chain (at least 1)",
  },
  {
    name: "hardfork",
    kind: "string",
    commands: ["dev", "follow"],
    default: "osaka",
    help: "cancun | prague | osaka (anvil's --hardfork): dev, a new chain's EVM from block 0; follow, the followed blocks' rules (at least the upstream's at the first one)",
  },
  {
    name: "fork-url",
    kind: "string",
    commands: ["dev", "replica"],
    help: "dev: start from a live chain's state: its JSON-RPC URL (http or https; an archive node for blocks outside its state window). What the chain never wrote is read from it at the fork block, once, and kept in the datadir. replica: the upstream of the forked chain it follows (dev --fork-url's)",
  },
  {
    name: "fork-block-number",
    kind: "string",
    commands: ["dev"],
    help: `the fork block: a number, or negative (--fork-block-number=-N) for that many below the upstream's head (default: the head less ${DEFAULT_FORK_DEPTH}, past the reorgs that happen; an upstream on 127.0.0.1 or localhost: its head)`,
  },
  {
    name: "fork-header",
    kind: "list",
    commands: ["dev", "replica", "follow"],
    help: 'a header sent with every upstream request, "Name: value" (repeatable; an API key, say)',
  },
  {
    name: "fork-retries",
    kind: "int",
    commands: ["dev", "replica", "follow"],
    default: 5,
    help: "upstream requests retried this many times on a rate limit or a failure (with backoff; Retry-After honoured)",
  },
  {
    name: "fork-retry-backoff",
    kind: "duration",
    commands: ["dev", "replica", "follow"],
    default: "1s",
    help: "the first wait before an upstream retry, doubled each time (bare number: ms)",
  },
  {
    name: "fork-timeout",
    kind: "duration",
    commands: ["dev", "replica", "follow"],
    default: "45s",
    help: "one upstream request's time limit (bare number: ms)",
  },
  {
    name: "fork-chain-id",
    kind: "int",
    commands: ["dev"],
    min: 1,
    help: "the upstream's chain id, not asked of it: with --fork-block-number, a fork already in the datadir's cache starts offline",
  },
  {
    name: "rpc",
    kind: "string",
    commands: ["follow"],
    help: "the followed chain's JSON-RPC URL (http or https): its blocks, and the state the node never wrote (it must answer state at recent blocks)",
  },
  {
    name: "flashblocks",
    kind: "string",
    commands: ["follow"],
    help: "its Base-format flashblocks stream (ws:// or wss://; Base: wss://mainnet.flashblocks.base.org/ws)",
  },
  {
    name: "tx-forward",
    kind: "string",
    commands: ["follow"],
    help: "where eth_sendRawTransaction goes (a sequencer's endpoint; default --rpc)",
  },
  {
    name: "max-pending-depth",
    kind: "int",
    commands: ["follow"],
    default: 3,
    help: "a pending block more than this many blocks behind the chain's tip is dropped",
  },
  {
    name: "poll-interval",
    kind: "duration",
    commands: ["follow"],
    default: "250ms",
    help: "how often the upstream's newest block is asked (a flashblock of a newer block asks at once; bare number: ms)",
  },
  {
    name: "flashblocks-read-timeout",
    kind: "duration",
    commands: ["follow"],
    default: "5s",
    help: "a stream that sends nothing this long is closed and dialled again (bare number: ms)",
  },
  {
    name: "ethereum",
    kind: "boolean",
    commands: ["dev"],
    default: false,
    help: "a new chain is plain Ethereum: no OP-stack deposits, predeploys or L1 data fee (by default a new dev chain is an OP-stack chain, as Base)",
  },
  {
    name: "l1-base-fee",
    kind: "int",
    commands: ["dev"],
    default: 1_000_000_000,
    help: "OP stack: the simulated L1 base fee (wei) each block's L1-info deposit reports; priced into every transaction's L1 data fee",
  },
  {
    name: "l1-blob-base-fee",
    kind: "int",
    commands: ["dev"],
    default: 1,
    help: "OP stack: the simulated L1 blob base fee (wei) each block's L1-info deposit reports",
  },
  {
    name: "l1-base-fee-scalar",
    kind: "int",
    commands: ["dev"],
    default: 2269,
    help: "OP stack: the L1 base fee scalar (Ecotone/Fjord fee formula; Base's value by default)",
  },
  {
    name: "l1-blob-base-fee-scalar",
    kind: "int",
    commands: ["dev"],
    default: 1_055_762,
    help: "OP stack: the L1 blob base fee scalar (Ecotone/Fjord fee formula; Base's value by default)",
  },
  {
    name: "genesis",
    kind: "string",
    commands: ["dev", "import"],
    help: "geth genesis JSON (dev: instead of the generated one; a datadir holding a chain from another genesis is refused)",
  },
  {
    name: "block-time",
    kind: "duration",
    commands: ["dev"],
    default: "2s",
    help: "a block is sealed every block time (bare number: seconds); 0: --automine",
  },
  {
    name: "automine",
    kind: "boolean",
    commands: ["dev"],
    default: false,
    help: "a block per transaction, sealed as soon as its flashblock is (as anvil's default); --block-time 0 means the same. evm_setAutomine and evm_setIntervalMining switch at run time",
  },
  {
    name: "load-state",
    kind: "string",
    commands: ["dev"],
    help: "an anvil state file (--dump-state's, anvil's or ours): its accounts are written into the chain at start (a directory: DIR/state.json)",
  },
  {
    name: "dump-state",
    kind: "string",
    commands: ["dev"],
    help: "write the chain's state as an anvil state file at exit (a directory: DIR/state.json)",
  },
  {
    name: "state",
    kind: "string",
    commands: ["dev"],
    help: "--load-state FILE if it exists, and --dump-state FILE at exit (anvil's --state)",
  },
  {
    name: "flashblock-interval",
    kind: "duration",
    commands: ["dev"],
    default: "200ms",
    help: "a flashblock is published every interval (bare number: ms)",
  },
  {
    name: "gas-limit",
    kind: "int",
    commands: ["dev"],
    // Below one plain transfer's gas no block could hold a transaction.
    min: 21_000,
    default: 60_000_000,
    help: "block gas limit (at least 21000); on a chain whose limit differs (an imported one), blocks move towards it by at most 1/1024 per block, as geth's miner",
  },
  {
    name: "accounts",
    kind: "int",
    commands: ["dev"],
    default: 10,
    help: "prefunded test-mnemonic accounts (a new chain)",
  },
  {
    name: "balance",
    kind: "int",
    commands: ["dev"],
    default: 10000,
    help: "ETH in each prefunded account (a new chain)",
  },
  {
    name: "safe-depth",
    kind: "int",
    commands: ["dev"],
    default: DEFAULT_SAFE_DEPTH,
    help: "the safe block trails latest by this many blocks (no consensus layer in dev)",
  },
  {
    name: "finalized-depth",
    kind: "int",
    commands: ["dev"],
    default: DEFAULT_FINALIZED_DEPTH,
    help: "the finalized block trails latest by this many blocks (at least --safe-depth)",
  },
  {
    name: "receipts",
    kind: "string",
    commands: ["dev"],
    default: "preconfirmed",
    help: "preconfirmed | sealed: whether eth_getTransactionReceipt/ByHash answer at pre-confirmation (as Base) or only once sealed (as anvil with a block time)",
  },
  {
    name: "nats",
    kind: "list",
    commands: ["dev", "replica"],
    env: "FLASHNODE_NATS",
    help: "NATS server URL(s), e.g. nats://127.0.0.1:4222 (repeatable; env: comma-separated). dev: publish blocks and flashblocks to JetStream; replica: follow them",
  },
  {
    name: "nats-prefix",
    kind: "string",
    commands: ["dev", "replica"],
    default: "flashnode",
    help: "subject prefix of the chain's streams (<prefix>.blocks.N, <prefix>.flashblocks, <prefix>.tx); stream names are its upper case",
  },
  {
    name: "nats-replicas",
    kind: "int",
    commands: ["dev", "replica"],
    min: 1,
    max: 5,
    default: 1,
    help: "JetStream replication factor of the streams and the snapshot bucket the node creates (3 on a 3-node cluster)",
  },
  {
    name: "nats-snapshot-every",
    kind: "int",
    commands: ["dev", "replica"],
    min: 0,
    default: 0,
    help: "store a snapshot of the archive in the <PREFIX>_SNAPSHOTS object store every this many blocks (0: never), so that new replicas can start after the block stream's retention dropped block 0",
  },
  {
    name: "nats-block-retention",
    kind: "duration",
    commands: ["dev"],
    default: "0s",
    help: "how long the block stream keeps a block (0: for ever), when the node creates it",
  },
  {
    name: "nats-flashblock-retention",
    kind: "duration",
    commands: ["dev"],
    default: "600s",
    help: "how long the flashblock stream keeps a flashblock, when the node creates it",
  },
  {
    name: "max-lag",
    kind: "int",
    commands: ["replica"],
    default: 10,
    help: "/readyz answers not ready while the replica is more than this many blocks behind the block stream",
  },
  {
    name: "verify",
    kind: "boolean",
    commands: ["replica"],
    default: false,
    help: "execute every block from the stream with the EVM and refuse one whose state root, receipts root, logs bloom or gas used differ (needs an archive built with --verify from block 0, or restored from the sequencer's snapshot)",
  },
  {
    name: "forkchoice",
    kind: "string",
    commands: ["import"],
    help: "engine_forkchoiceUpdated JSON: sets safe and finalized (without it both are the head)",
  },
  {
    name: "no-sync",
    kind: "boolean",
    commands: ["import"],
    default: false,
    help: "skip fsync per block (faster; a power loss may lose recent blocks)",
  },
  {
    name: "progress-interval",
    kind: "duration",
    commands: ["import"],
    default: "1000ms",
    help: "without a TTY, a progress line at most this often (0 = every block)",
  },
];
