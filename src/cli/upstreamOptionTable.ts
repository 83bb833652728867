// The options of the roles that start from a live chain: a fork's upstream (dev --fork-url, its
// replicas) and a follower's RPC and flashblocks stream (gathered into optionTable.ts).
import { DEFAULT_FORK_DEPTH } from "../upstream/forkPoint.ts";
import type { OptionDef } from "./optionTypes.ts";

export const UPSTREAM_OPTIONS = [
  {
    name: "fork-url",
    kind: "string",
    commands: ["dev", "replica"],
    help: "a live chain's JSON-RPC URL (http or https)",
    commandHelp: {
      dev: "the chain starts from its state (an archive node for blocks outside its state window); what the chain never wrote is read from it at the fork block, once, and kept in the datadir",
      replica: "the upstream of the forked chain it follows (its sequencer's --fork-url)",
    },
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
] as const satisfies readonly OptionDef[];
