// `flashnode follow --rpc URL --flashblocks WS_URL`: follows a live chain and its flashblocks
// stream, and serves every method at `pending` from the pre-confirmed block it re-executes.
import { join } from "node:path";
import { createLogger } from "../log/logger.ts";
import { type FollowPlan, followingView } from "../node/plan.ts";
import { checkUpstreamUrl } from "../upstream/options.ts";
import { UsageError } from "../util/errors.ts";
import { checkListenAddress } from "./args.ts";
import { callLimitOptions } from "./callLimitOptions.ts";
import { upstreamFrom } from "./forkOptions.ts";
import { frontendOptions } from "./frontendOptions.ts";
import { helpFor, resolveOptions } from "./options.ts";
import type { OptionValues } from "./optionTable.ts";
import { readerProcessPlan } from "./readerProcesses.ts";
import { runNode } from "./runNode.ts";

/** Base's flashblock cadence: /readyz calls pending stale after five intervals without one. */

export const FOLLOW_HELP = `flashnode follow --rpc URL --flashblocks WS_URL [flags]

Follows a live chain (an OP-stack chain such as Base, or an Ethereum chain) and its flashblocks
stream: each canonical block is fetched, executed here on state read from --rpc and checked
against its header (receipts root, gas used); each flashblock is re-executed on the head, so
every method answers at "pending" from the pre-confirmed state, eth_getStorageAt and
eth_getBlockReceipts included. Blocks and state from before the node started are the upstream's,
served through it. Transactions go to --rpc, or --tx-forward. With --nats, what it follows is
published to NATS JetStream for replicas (flashnode replica --nats URL --fork-url RPC); followers
sharing the streams elect one publisher, and a standby takes over when it dies. See
docs/follow.md and docs/replicas.md.

${helpFor("follow")}
`;

export async function followCommand(argv: string[]): Promise<void> {
  const { values } = resolveOptions("follow", argv);
  const rpc = values.rpc;
  const flashblocks = values.flashblocks;
  if (rpc === undefined || flashblocks === undefined)
    throw new UsageError(
      "flashnode follow needs --rpc URL and --flashblocks WS_URL (see flashnode follow --help)",
    );
  checkUpstreamUrl(rpc);
  if (!/^wss?:\/\//.test(flashblocks))
    throw new UsageError(`--flashblocks must be a ws:// or wss:// URL, got ${flashblocks}`);
  const txForward = values["tx-forward"];
  if (txForward !== undefined) checkUpstreamUrl(txForward);
  const datadir = values.datadir ?? join(process.cwd(), ".flashnode", "follow");
  const logger = createLogger(values["log-level"]);
  const nats = natsOptions(values);
  const frontend = frontendOptions(values);
  const readerProcesses = readerProcessPlan(values, frontend);
  if (readerProcesses.process.kind !== "reader")
    await checkListenAddress(frontend.host, frontend.port);
  await runNode(
    {
      role: "follow",
      datadir,
      fresh: readerProcesses.process.kind !== "reader" && values.fresh,
      logger,
      frontend,
      ...readerProcesses,
      argv: ["follow", ...argv],
      callLimits: callLimitOptions(values),
      view: followingView(),
      source: {
        kind: "follow",
        follow: {
          upstream: upstreamFrom(rpc, values),
          flashblocksUrl: flashblocks,
          hardfork: values.hardfork,
          txForward,
          pollMs: values["poll-interval"],
          maxPendingDepth: values["max-pending-depth"],
          streamReadTimeoutMs: values["flashblocks-read-timeout"],
          ...(nats === undefined ? {} : { nats }),
        },
      },
    },
    [`following ${new URL(rpc).host}`],
  );
}

/** `--nats …`: the streams the follower publishes to, shared with other followers under a lease. */
function natsOptions(values: OptionValues<"follow">): FollowPlan["nats"] {
  const servers = values.nats ?? [];
  if (servers.length === 0) return undefined;
  const leaseTtlMs = values["nats-lease"];
  if (leaseTtlMs < 100) throw new UsageError("--nats-lease must be at least 100ms");
  return {
    servers,
    leaseTtlMs,
    streams: {
      prefix: values["nats-prefix"],
      replicas: values["nats-replicas"],
      // A follower's archive is not one a replica can restore (its trie is its own).
      snapshotEveryBlocks: 0,
      blockRetentionMs: values["nats-block-retention"],
      flashblockRetentionMs: values["nats-flashblock-retention"],
    },
  };
}
