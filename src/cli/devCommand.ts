// `flashnode dev` (what `npm start` runs): a local chain with a sequencer, 200 ms flashblocks,
// 2 s blocks, prefunded test accounts, and JSON-RPC over HTTP and WebSocket.
import { join } from "node:path";
import { DEV_MNEMONIC, devAccounts } from "../chain/devGenesis.ts";
import { createLogger } from "../log/logger.ts";
import type { NodePlan } from "../node/plan.ts";
import { UsageError } from "../util/errors.ts";
import { checkListenAddress, isLocalHost } from "./args.ts";
import { callLimitOptions } from "./callLimitOptions.ts";
import { forkPlan } from "./forkOptions.ts";
import { DEV_LOCAL_API_KEY, frontendOptions } from "./frontendOptions.ts";
import { readGenesisFile, readStateFile, stateFilePath } from "./inputFiles.ts";
import { helpFor, resolveOptions } from "./options.ts";
import type { OptionValues } from "./optionTable.ts";
import { readerProcessPlan } from "./readerProcesses.ts";
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
function natsOptions(values: OptionValues<"dev">) {
  const servers = values.nats ?? [];
  if (servers.length === 0) return {};
  return {
    nats: {
      servers,
      streams: {
        prefix: values["nats-prefix"],
        replicas: values["nats-replicas"],
        snapshotEveryBlocks: values["nats-snapshot-every"],
        blockRetentionMs: values["nats-block-retention"],
        flashblockRetentionMs: values["nats-flashblock-retention"],
      },
    },
  };
}

/** --load-state, --dump-state, --state (anvil's): the state loaded at start, the file dumped at exit. */
function stateFiles(values: OptionValues<"dev">) {
  const both = values.state;
  const load = values["load-state"];
  const dump = values["dump-state"];
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
  const blockTimeMs = values["block-time"];
  // --block-time 0 is automine (anvil's default: no block time).
  const automine = values.automine || blockTimeMs === 0;
  const flashblockIntervalMs = values["flashblock-interval"];
  if (flashblockIntervalMs < 1) throw new UsageError("--flashblock-interval must be at least 1ms");
  if (!automine && flashblockIntervalMs > blockTimeMs)
    throw new UsageError(
      "--flashblock-interval must be at most --block-time (or --automine / --block-time 0: a block per transaction)",
    );
  const safeDepth = values["safe-depth"];
  const finalizedDepth = values["finalized-depth"];
  if (finalizedDepth < safeDepth)
    throw new UsageError("--finalized-depth must be at least --safe-depth");
  const fork = forkPlan(values);
  const datadir =
    values.datadir ?? join(process.cwd(), ".flashnode", fork === undefined ? "dev" : "fork");
  const logger = createLogger(values["log-level"]);
  const frontend = frontendOptions(
    values,
    isLocalHost(values.host) ? DEV_LOCAL_API_KEY : undefined,
  );
  const readerProcesses = readerProcessPlan(values, frontend);
  const gasLimit = BigInt(values["gas-limit"]);
  const accounts = values.accounts;
  const reader = readerProcesses.process.kind === "reader";
  // Every input is checked before the datadir is created (or, with --fresh, wiped); a reader
  // process takes what its primary checked.
  const genesisFile = values.genesis;
  const genesis =
    genesisFile === undefined || reader ? undefined : (await readGenesisFile(genesisFile)).json;
  const states = reader ? {} : stateFiles(values);
  if (!reader) await checkListenAddress(frontend.host, frontend.port);
  const plan: NodePlan = {
    role: "dev",
    datadir,
    fresh: !reader && values.fresh,
    logger,
    frontend,
    ...readerProcesses,
    argv: ["dev", ...argv],
    callLimits: callLimitOptions(values),
    view: {
      receipts: values.receipts,
      forkchoice: { kind: "trailing", safe: safeDepth, finalized: finalizedDepth },
      flashblockIntervalMs,
      gasCeil: gasLimit,
      accounts: devAccounts(accounts),
    },
    source: {
      kind: "sequencer",
      chain: {
        chainId: BigInt(values["chain-id"]),
        fork: values.hardfork,
        genesis,
        chainIdGiven: given.has("chain-id"),
        ethereum: values.ethereum,
        l1: {
          baseFee: BigInt(values["l1-base-fee"]),
          blobBaseFee: BigInt(values["l1-blob-base-fee"]),
          baseFeeScalar: values["l1-base-fee-scalar"],
          blobBaseFeeScalar: values["l1-blob-base-fee-scalar"],
        },
        blockTimeMs,
        automine,
        flashblockIntervalMs,
        gasLimit,
        accounts,
        balanceEth: BigInt(values.balance),
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
