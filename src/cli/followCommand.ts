// `flashnode follow --rpc URL --flashblocks WS_URL`: follows a live chain and its flashblocks
// stream, and serves every method at `pending` from the pre-confirmed block it re-executes.
import { join } from "node:path";
import { DEV_FORKS, type DevFork } from "../chain/devGenesis.ts";
import { DEFAULT_FINALIZED_DEPTH, DEFAULT_SAFE_DEPTH } from "../chain/forkchoice.ts";
import { createLogger } from "../log/logger.ts";
import type { FollowPlan } from "../node/plan.ts";
import { isReader } from "../node/readerSlot.ts";
import { checkUpstreamUrl, parseUpstreamHeader, upstreamOptions } from "../upstream/options.ts";
import { UsageError } from "../util/errors.ts";
import { checkListenAddress } from "./args.ts";
import { callLimitOptions } from "./callLimitOptions.ts";
import { frontendOptions } from "./frontendOptions.ts";
import { helpFor, parseDuration, resolveOptions } from "./options.ts";
import { rpcWorkerCount } from "./rpcWorkers.ts";
import { runNode } from "./runNode.ts";

/** Base's flashblock cadence: /readyz calls pending stale after five intervals without one. */
const FLASHBLOCK_INTERVAL_MS = 200;

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
  const rpc = values.get("rpc") as string | undefined;
  const flashblocks = values.get("flashblocks") as string | undefined;
  if (rpc === undefined || flashblocks === undefined)
    throw new UsageError(
      "flashnode follow needs --rpc URL and --flashblocks WS_URL (see flashnode follow --help)",
    );
  checkUpstreamUrl(rpc);
  if (!/^wss?:\/\//.test(flashblocks))
    throw new UsageError(`--flashblocks must be a ws:// or wss:// URL, got ${flashblocks}`);
  const txForward = values.get("tx-forward") as string | undefined;
  if (txForward !== undefined) checkUpstreamUrl(txForward);
  const hardfork = values.get("hardfork") as DevFork;
  if (!DEV_FORKS.includes(hardfork))
    throw new UsageError(`--hardfork must be one of ${DEV_FORKS.join(", ")}`);
  const headers = (values.get("fork-header") as readonly string[] | undefined) ?? [];
  const datadir =
    (values.get("datadir") as string | undefined) ?? join(process.cwd(), ".flashnode", "follow");
  const logger = createLogger(values.get("log-level") as string);
  const nats = natsOptions(values);
  const frontend = frontendOptions(values);
  const workers = rpcWorkerCount(values, frontend);
  if (!isReader()) await checkListenAddress(frontend.host, frontend.port);
  await runNode(
    {
      role: "follow",
      datadir,
      fresh: !isReader() && values.get("fresh") === true,
      logger,
      frontend,
      rpcWorkers: workers,
      argv: ["follow", ...argv],
      callLimits: callLimitOptions(values),
      view: {
        receipts: "preconfirmed",
        forkchoice: {
          kind: "trailing",
          safe: DEFAULT_SAFE_DEPTH,
          finalized: DEFAULT_FINALIZED_DEPTH,
        },
        flashblockIntervalMs: FLASHBLOCK_INTERVAL_MS,
      },
      source: {
        kind: "follow",
        follow: {
          upstream: upstreamOptions(rpc, {
            headers: Object.fromEntries(headers.map(parseUpstreamHeader)),
            retries: values.get("fork-retries") as number,
            retryBackoffMs: parseDuration(
              "fork-retry-backoff",
              values.get("fork-retry-backoff"),
              "ms",
            ),
            timeoutMs: parseDuration("fork-timeout", values.get("fork-timeout"), "ms"),
          }),
          flashblocksUrl: flashblocks,
          hardfork,
          txForward,
          pollMs: parseDuration("poll-interval", values.get("poll-interval"), "ms"),
          maxPendingDepth: values.get("max-pending-depth") as number,
          streamReadTimeoutMs: parseDuration(
            "flashblocks-read-timeout",
            values.get("flashblocks-read-timeout"),
            "ms",
          ),
          ...(nats === undefined ? {} : { nats }),
        },
      },
    },
    [`following ${new URL(rpc).host}`],
  );
}

/** `--nats …`: the streams the follower publishes to, shared with other followers under a lease. */
function natsOptions(values: ReadonlyMap<string, unknown>): FollowPlan["nats"] {
  const servers = (values.get("nats") as readonly string[] | undefined) ?? [];
  if (servers.length === 0) return undefined;
  const leaseTtlMs = parseDuration("nats-lease", values.get("nats-lease"), "ms");
  if (leaseTtlMs < 100) throw new UsageError("--nats-lease must be at least 100ms");
  return {
    servers,
    leaseTtlMs,
    streams: {
      prefix: values.get("nats-prefix") as string,
      replicas: values.get("nats-replicas") as number,
      // A follower's archive is not one a replica can restore (its trie is its own).
      snapshotEveryBlocks: 0,
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
  };
}
