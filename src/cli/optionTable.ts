// Every option of every command, in one table (the HTTP edge's and the upstream's options in
// tables of their own, gathered here in their places): its flag, its FLASHNODE_* variable, its
// config file key, its default and its help line. options.ts resolves and parses them (flag >
// environment > config file > default) and writes `--help` from them; configDoc.ts writes
// docs/config.md from them. Declared `as const`: each command reads its values typed by it.
import { availableParallelism } from "node:os";
import { DEV_FORKS } from "../chain/devGenesis.ts";
import { DEFAULT_FINALIZED_DEPTH, DEFAULT_SAFE_DEPTH } from "../chain/forkchoice.ts";
import { RECEIPT_LOOKUPS } from "../node/plan.ts";

import { EDGE_OPTIONS } from "./edgeOptionTable.ts";
import { type Command, NODE, type OptionDef, type ValuesOf } from "./optionTypes.ts";
import { UPSTREAM_OPTIONS } from "./upstreamOptionTable.ts";

export type { Command, OptionDef } from "./optionTypes.ts";

/** One RPC process per core, up to 4 (the default of --rpc-workers). */
export function defaultReaderProcesses(): number {
  return Math.min(availableParallelism(), 4);
}

const TABLE = [
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
    help: "data directory",
    commandHelp: {
      dev: "dev continues the chain it holds, its own or one made by flashnode import (default ./.flashnode/dev; with --fork-url, ./.flashnode/fork)",
      serve: "the archive to serve, read-only (required)",
      import: "a new one, or one holding the same chain, which the import continues (required)",
      replica:
        "the replica's own archive: empty at first (filled from the block stream or a snapshot), then the one it wrote (required)",
      follow: "the blocks it followed and what it read from --rpc (default ./.flashnode/follow)",
    },
  },
  {
    name: "log-level",
    kind: "string",
    commands: ["dev", "serve", "import", "replica", "follow"],
    default: "info",
    help: "trace, debug, info, warn, error, silent",
  },
  ...EDGE_OPTIONS,
  {
    name: "rpc-workers",
    kind: "int",
    commands: NODE,
    max: 64,
    // A local node starts in a second with one (each reader process loads the node again).
    commandDefaults: { dev: 1 },
    default: { describe: "one per core up to 4", value: defaultReaderProcesses },
    help: "processes serving RPC from the one archive, sharing the port, rate limits and metrics",
  },
  {
    name: "fresh",
    kind: "boolean",
    commands: ["dev", "follow"],
    default: false,
    help: "start over rather than continue",
    commandHelp: {
      dev: "the datadir is deleted first and a new chain starts",
      follow: "the upstream is followed anew, from its head (what was fetched from it is kept)",
    },
  },
  {
    name: "chain-id",
    kind: "int",
    commands: ["dev"],
    min: 1,
    default: 31337,
    help: "chain id of a new chain (at least 1); given for a datadir that holds a chain of another chain id, refused (--fresh starts a new one)",
  },
  {
    name: "hardfork",
    kind: "choice",
    choices: DEV_FORKS,
    commands: ["dev", "follow"],
    default: "osaka",
    help: "the EVM's rules (anvil's --hardfork)",
    commandHelp: {
      dev: "a new chain's EVM from block 0",
      follow: "the followed blocks' rules (at least the upstream's at the first one)",
    },
  },
  ...UPSTREAM_OPTIONS,
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
    unit: "s",
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
    kind: "choice",
    choices: RECEIPT_LOOKUPS,
    commands: ["dev"],
    default: "preconfirmed",
    help: "whether eth_getTransactionReceipt/ByHash answer at pre-confirmation (as Base) or only once sealed (as anvil with a block time)",
  },
  {
    name: "nats",
    kind: "list",
    commands: ["dev", "replica", "follow"],
    env: "FLASHNODE_NATS",
    commaSeparated: true,
    help: "NATS server URL(s), e.g. nats://127.0.0.1:4222 (comma-separated, or repeated)",
    commandHelp: {
      dev: "the chain's blocks and flashblocks are published to JetStream, for replicas",
      replica:
        "the JetStream of a sequencer or of followers, whose blocks and flashblocks it follows (required)",
      follow:
        "what it follows (blocks, re-executed flashblocks) is published to JetStream, for replicas; followers given the same servers and --nats-prefix share the streams, one publishing at a time (--nats-lease)",
    },
  },
  {
    name: "nats-prefix",
    kind: "string",
    commands: ["dev", "replica", "follow"],
    default: "flashnode",
    help: "subject prefix of the chain's streams (<prefix>.blocks.N, <prefix>.flashblocks, <prefix>.tx); stream names are its upper case",
  },
  {
    name: "nats-replicas",
    kind: "int",
    commands: ["dev", "replica", "follow"],
    min: 1,
    max: 5,
    default: 1,
    help: "JetStream replication factor of the streams and the buckets (snapshots, a follower's lease) the node creates (3 on a 3-node cluster)",
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
    commands: ["dev", "follow"],
    default: "0s",
    help: "how long the block stream keeps a block (0: for ever), when the node creates it",
    unit: "s",
  },
  {
    name: "nats-flashblock-retention",
    kind: "duration",
    commands: ["dev", "follow"],
    default: "600s",
    help: "how long the flashblock stream keeps a flashblock, when the node creates it",
    unit: "s",
  },
  {
    name: "nats-lease",
    kind: "duration",
    commands: ["follow"],
    default: "1s",
    help: "TTL of the publisher lease of followers sharing a stream (bucket <PREFIX>_PUBLISHER, when the node creates it): a standby takes over this long after the publisher's last renewal, which it sends five times a TTL",
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
] as const satisfies readonly OptionDef[];

/** Every option, for what walks the table (parsing, --help, docs/config.md). */
export const OPTIONS: readonly OptionDef[] = TABLE;

/** Command(s) C's options once parsed, typed by the table: each is read with its type. */
export type OptionValues<C extends Command> = ValuesOf<(typeof TABLE)[number], C>;
