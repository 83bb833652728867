// `flashnode dev` (what `npm start` runs): a local chain with a sequencer, 200 ms flashblocks,
// 2 s blocks, prefunded test accounts, and JSON-RPC over HTTP and WebSocket.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { DEV_FORKS, DEV_MNEMONIC, type DevFork, devAccounts } from "../chain/devGenesis.ts";
import { describePolicy } from "../edge/policy.ts";
import { createLogger, printAfterLogs } from "../log/logger.ts";
import { RECEIPT_LOOKUPS, type ReceiptLookups, startDevNode } from "../node/devNode.ts";
import { isReader, readerCount, readerSlot } from "../node/readerCluster.ts";
import { startStreamReader } from "../node/streamReader.ts";
import { missingRoot } from "../store/datadir.ts";
import { UsageError } from "../util/errors.ts";
import { checkListenAddress } from "./args.ts";
import { callLimitOptions } from "./callLimitOptions.ts";
import { frontendOptions } from "./frontendOptions.ts";
import { readGenesisFile } from "./inputFiles.ts";
import { helpFor, parseDuration, resolveOptions } from "./options.ts";
import { closeOnSignals, rpcWorkerCount } from "./rpcWorkers.ts";

export const DEV_HELP = `flashnode dev [flags]

Runs a local chain like Base with flashblocks: a sequencer executes submitted transactions with
the EVM, publishes a flashblock every --flashblock-interval (the "pending" view and the
/flashblocks WebSocket stream) and seals a block every --block-time into the archive.
Accounts come from the mnemonic "${DEV_MNEMONIC}" (m/44'/60'/0'/0/i).
State persists in the datadir; restarting continues the chain.

A datadir made by \`flashnode import\` is continued the same way: --datadir D continues the
imported chain from its head with its own genesis config (chain id, forks by timestamp, base fee,
blob schedule, system contracts); --chain-id, --fork, --accounts and --balance only shape a new
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

export async function devCommand(argv: string[]): Promise<void> {
  const { values } = resolveOptions("dev", argv);
  const fork = values.get("fork") as DevFork;
  if (!DEV_FORKS.includes(fork))
    throw new UsageError(`--fork must be one of ${DEV_FORKS.join(", ")}`);
  const receipts = values.get("receipts") as ReceiptLookups;
  if (!RECEIPT_LOOKUPS.includes(receipts))
    throw new UsageError(`--receipts must be one of ${RECEIPT_LOOKUPS.join(", ")}`);
  const blockTimeMs = parseDuration("block-time", values.get("block-time"), "s");
  const flashblockIntervalMs = parseDuration(
    "flashblock-interval",
    values.get("flashblock-interval"),
    "ms",
  );
  if (flashblockIntervalMs < 1 || flashblockIntervalMs > blockTimeMs) {
    throw new UsageError("--flashblock-interval must be at least 1ms and at most --block-time");
  }
  const safeDepth = values.get("safe-depth") as number;
  const finalizedDepth = values.get("finalized-depth") as number;
  if (finalizedDepth < safeDepth)
    throw new UsageError("--finalized-depth must be at least --safe-depth");
  const datadir =
    (values.get("datadir") as string | undefined) ?? join(process.cwd(), ".flashnode", "dev");
  const logger = createLogger(values.get("log-level") as string);
  const frontend = frontendOptions(values);
  const callLimits = callLimitOptions(values);
  if (isReader()) {
    // One of the --rpc-workers processes: the primary has checked everything and runs the chain.
    const reader = await startStreamReader({
      datadir,
      frontend,
      logger,
      readers: readerCount(),
      recordsBuilds: readerSlot() === 0,
      safeDepth,
      finalizedDepth,
      flashblockIntervalMs,
      receipts,
      callLimits,
      gasCeil: BigInt(values.get("gas-limit") as number),
      accounts: devAccounts(values.get("accounts") as number),
    });
    closeOnSignals(() => reader.close());
    return;
  }
  const workers = rpcWorkerCount(values, frontend);
  // Every input is checked before the datadir is created (or, with --fresh, wiped).
  const genesisFile = values.get("genesis") as string | undefined;
  const genesis = genesisFile === undefined ? undefined : (await readGenesisFile(genesisFile)).json;
  await checkListenAddress(frontend.host, frontend.port);
  const created = missingRoot(datadir);
  const node = await startDevNode({
    datadir,
    fresh: values.get("fresh") === true,
    frontend,
    logger,
    chainId: BigInt(values.get("chain-id") as number),
    fork,
    genesis,
    ethereum: values.get("ethereum") === true,
    l1: {
      baseFee: BigInt(values.get("l1-base-fee") as number),
      blobBaseFee: BigInt(values.get("l1-blob-base-fee") as number),
      baseFeeScalar: values.get("l1-base-fee-scalar") as number,
      blobBaseFeeScalar: values.get("l1-blob-base-fee-scalar") as number,
    },
    blockTimeMs,
    flashblockIntervalMs,
    gasLimit: BigInt(values.get("gas-limit") as number),
    accounts: values.get("accounts") as number,
    balanceEth: BigInt(values.get("balance") as number),
    safeDepth,
    finalizedDepth,
    receipts,
    callLimits,
    ...(workers > 1 ? { readers: { count: workers, argv: ["dev", ...argv] } } : {}),
    ...natsOptions(values),
  }).catch((e: unknown) => {
    // Past the checks, a start can still fail (the port taken since it was probed, a full
    // disk): a datadir this run created goes with it. The node has released it by now.
    if (created !== undefined) rmSync(created, { recursive: true, force: true });
    throw e;
  });
  const accounts =
    node.accounts.length === 0
      ? [
          "No prefunded accounts: this chain's genesis funds none of the test mnemonic's.",
          `Transactions signed for chain id ${node.chainId} by the chain's own keys are accepted.`,
        ]
      : [
          "Available Accounts",
          "==================",
          ...node.accounts.map((a, i) => `(${i}) ${a.address}`),
          "",
          "Private Keys",
          "==================",
          ...node.accounts.map((a, i) => `(${i}) ${a.privateKey}`),
          "",
          `Mnemonic: ${DEV_MNEMONIC}`,
        ];
  const lines = [
    "",
    "flashnode dev",
    "",
    ...accounts,
    "",
    `Chain ID: ${node.chainId}    block time: ${blockTimeMs} ms    flashblocks every ${flashblockIntervalMs} ms`,
    ...(node.resumedAt === undefined
      ? []
      : [`Continuing the chain in the datadir from block ${node.resumedAt}`]),
    `Data: ${datadir}`,
    `RPC processes: ${workers}${workers > 1 ? " (--rpc-workers)" : ""}`,
    "",
    `JSON-RPC (public):     ${node.url}`,
    `JSON-RPC (dedicated):  ${node.dedicatedUrl}${frontend.generatedKey ? "   (key generated for this run; set --api-key)" : ""}`,
    `WebSocket:             ${node.wsUrl}`,
    `Flashblocks stream:    ${node.wsUrl}flashblocks`,
    `Metrics:               ${node.url}metrics`,
    `Live page:             ${node.url}ui`,
    ...(node.nats === undefined ? [] : [`NATS JetStream:        ${node.nats}`]),
    "",
    describePolicy(frontend.policy),
    "",
  ];
  // The banner comes last, after the start-up log lines, so that they do not push it up.
  printAfterLogs(logger, `${lines.join("\n")}\n`);
  const stop = () => {
    logger.info("shutting down");
    void node.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
