// `flashnode dev` (what `npm start` runs): a local chain with a sequencer, 200 ms flashblocks,
// 2 s blocks, prefunded test accounts, and JSON-RPC over HTTP and WebSocket.
import { join } from "node:path";
import { DEV_FORKS, DEV_MNEMONIC, type DevFork, devAccounts } from "../chain/devGenesis.ts";
import { createLogger } from "../log/logger.ts";
import { type NodePlan, RECEIPT_LOOKUPS, type ReceiptLookups } from "../node/plan.ts";
import { isReader } from "../node/readerSlot.ts";
import { UsageError } from "../util/errors.ts";
import { checkListenAddress, isLocalHost } from "./args.ts";
import { callLimitOptions } from "./callLimitOptions.ts";
import { forkPlan } from "./forkOptions.ts";
import { DEV_LOCAL_API_KEY, frontendOptions } from "./frontendOptions.ts";
import { readGenesisFile, readStateFile, stateFilePath } from "./inputFiles.ts";
import { helpFor, parseDuration, resolveOptions } from "./options.ts";
import { rpcWorkerCount } from "./rpcWorkers.ts";
import { runNode } from "./runNode.ts";

export const DEV_HELP = `flashnode dev [flags]

Runs a local chain like Base with flashblocks: a sequencer executes submitted transactions with
the EVM, publishes a flashblock every --flashblock-interval (the "pending" view and the
/flashblocks WebSocket stream) and seals a block every --block-time into the archive.
Accounts come from the mnemonic "${DEV_MNEMONIC}" (m/44'/60'/0'/0/i).
State persists in the datadir; restarting continues the chain.

A datadir made by \`flashnode import\` is continued the same way: --datadir D continues the
imported chain from its head with its own genesis config (chain id, forks by timestamp, base fee,
blob schedule, system contracts); --chain-id, --hardfork, --accounts and --balance only shape a new
chain, and there are no prefunded test accounts on such a chain. --gas-limit is the gas limit
blocks move towards, by at most 1/1024 of the parent's per block (as geth's miner).

${helpFor("dev")}
`;

/** `--nats …`: where and how the node publishes its chain for replicas. */
function natsOptions(values: ReadonlyMap<string, unknown>) {
  const servers = (values.get("nats") as readonly string[] | undefined) ?? [];
  if (servers.length === 0) return {};
  return {
    nats: {
      servers,
      streams: {
        prefix: values.get("nats-prefix") as string,
        replicas: values.get("nats-replicas") as number,
        snapshotEveryBlocks: values.get("nats-snapshot-every") as number,
        blockRetentionMs: parseDuration(
          "nats-block-retention",
          values.get("nats-block-retention"),
          "s",
        ),
        flashblockRetentionMs: parseDuration(
          "nats-flashblock-retention",
          values.get("nats-flashblock-retention"),
          "s",
        ),
      },
    },
  };
}

/** --load-state, --dump-state, --state (anvil's): the state loaded at start, the file dumped at exit. */
function stateFiles(values: ReadonlyMap<string, unknown>) {
  const both = values.get("state") as string | undefined;
  const load = values.get("load-state") as string | undefined;
  const dump = values.get("dump-state") as string | undefined;
  if (both !== undefined && (load !== undefined || dump !== undefined))
    throw new UsageError("--state is --load-state and --dump-state in one: give it alone");
  const loadState =
    both !== undefined
      ? readStateFile("state", both, true)
      : load === undefined
        ? undefined
        : readStateFile("load-state", load);
  const dumpState = both ?? dump;
  return {
    ...(loadState === undefined ? {} : { loadState }),
    ...(dumpState === undefined ? {} : { dumpState: stateFilePath(dumpState) }),
  };
}

export async function devCommand(argv: string[]): Promise<void> {
  const { values, given } = resolveOptions("dev", argv);
  const hardfork = values.get("hardfork") as DevFork;
  if (!DEV_FORKS.includes(hardfork))
    throw new UsageError(`--hardfork must be one of ${DEV_FORKS.join(", ")}, got ${hardfork}`);
  const receipts = values.get("receipts") as ReceiptLookups;
  if (!RECEIPT_LOOKUPS.includes(receipts))
    throw new UsageError(`--receipts must be one of ${RECEIPT_LOOKUPS.join(", ")}`);
  const blockTimeMs = parseDuration("block-time", values.get("block-time"), "s");
  // --block-time 0 is automine (anvil's default: no block time).
  const automine = values.get("automine") === true || blockTimeMs === 0;
  const flashblockIntervalMs = parseDuration(
    "flashblock-interval",
    values.get("flashblock-interval"),
    "ms",
  );
  if (flashblockIntervalMs < 1) throw new UsageError("--flashblock-interval must be at least 1ms");
  if (!automine && flashblockIntervalMs > blockTimeMs)
    throw new UsageError(
      "--flashblock-interval must be at most --block-time (or --automine / --block-time 0: a block per transaction)",
    );
  const safeDepth = values.get("safe-depth") as number;
  const finalizedDepth = values.get("finalized-depth") as number;
  if (finalizedDepth < safeDepth)
    throw new UsageError("--finalized-depth must be at least --safe-depth");
  const fork = forkPlan(values);
  const datadir =
    (values.get("datadir") as string | undefined) ??
    join(process.cwd(), ".flashnode", fork === undefined ? "dev" : "fork");
  const logger = createLogger(values.get("log-level") as string);
  const host = values.get("host") as string;
  const frontend = frontendOptions(values, isLocalHost(host) ? DEV_LOCAL_API_KEY : undefined);
  const workers = rpcWorkerCount(values, frontend);
  const gasLimit = BigInt(values.get("gas-limit") as number);
  const accounts = values.get("accounts") as number;
  const reader = isReader();
  // Every input is checked before the datadir is created (or, with --fresh, wiped); a reader
  // process takes what its primary checked.
  const genesisFile = values.get("genesis") as string | undefined;
  const genesis =
    genesisFile === undefined || reader ? undefined : (await readGenesisFile(genesisFile)).json;
  const states = reader ? {} : stateFiles(values);
  if (!reader) await checkListenAddress(frontend.host, frontend.port);
  const plan: NodePlan = {
    role: "dev",
    datadir,
    fresh: !reader && values.get("fresh") === true,
    logger,
    frontend,
    rpcWorkers: workers,
    argv: ["dev", ...argv],
    callLimits: callLimitOptions(values),
    view: {
      receipts,
      forkchoice: { kind: "trailing", safe: safeDepth, finalized: finalizedDepth },
      flashblockIntervalMs,
      gasCeil: gasLimit,
      accounts: devAccounts(accounts),
    },
    source: {
      kind: "sequencer",
      chain: {
        chainId: BigInt(values.get("chain-id") as number),
        fork: hardfork,
        genesis,
        chainIdGiven: given.has("chain-id"),
        ethereum: values.get("ethereum") === true,
        l1: {
          baseFee: BigInt(values.get("l1-base-fee") as number),
          blobBaseFee: BigInt(values.get("l1-blob-base-fee") as number),
          baseFeeScalar: values.get("l1-base-fee-scalar") as number,
          blobBaseFeeScalar: values.get("l1-blob-base-fee-scalar") as number,
        },
        blockTimeMs,
        automine,
        flashblockIntervalMs,
        gasLimit,
        accounts,
        balanceEth: BigInt(values.get("balance") as number),
        ...natsOptions(values),
        ...states,
        ...(fork === undefined ? {} : { upstream: fork, gasLimitGiven: given.has("gas-limit") }),
      },
    },
  };
  // Past the checks, a start can still fail (the port taken since it was probed, a full disk,
  // an unreachable upstream): runNode leaves the datadir as it found it.
  await runNode(plan, [
    automine ? "automine: a block per transaction" : `block time: ${blockTimeMs} ms`,
    `flashblocks every ${flashblockIntervalMs} ms`,
  ]);
}
