// What every role does around its node, the same for all: start it, print the banner (role,
// chain id, head, URLs, the policy in force), then run until SIGINT or SIGTERM — one "shutting
// down" line, a clean stop, exit 0 — or until the node can no longer run (exit 1, one line).
// A signal during the start ends the start (StopRequested); a second signal, or a stop that has
// not finished within its deadline, ends the process at once (signals.ts).
import { DEV_MNEMONIC } from "../chain/devGenesis.ts";
import { describePolicy } from "../edge/policy.ts";
import { printAfterLogs } from "../log/logger.ts";
import { redactText } from "../log/redact.ts";
import { startNode } from "../node/assembly.ts";
import type { NodePlan, RunningNode } from "../node/plan.ts";
import { DatadirUnavailableError, datadirAsFound } from "../store/datadir.ts";
import { StopRequested } from "../util/errors.ts";
import { DEV_LOCAL_API_KEY } from "./frontendOptions.ts";
import { onStopSignals } from "./signals.ts";

export async function runNode(plan: NodePlan, details: readonly string[] = []): Promise<void> {
  // A reader process stops with its node: the primary says it once.
  const primary = plan.process.kind === "primary";
  let node: RunningNode | undefined;
  let stopping = false;
  const stop = (code: number) => {
    if (stopping || node === undefined) return;
    stopping = true;
    void node.close().then(
      () => process.exit(code),
      (e: unknown) => {
        plan.logger.error({ err: e }, "stopping failed");
        process.exit(1);
      },
    );
  };
  const signals = onStopSignals({
    stop: () => {
      if (primary) plan.logger.info("shutting down");
      // While starting, the start itself gives up (it is given the aborted signal).
      stop(0);
    },
    force: (why) => {
      process.stderr.write(`flashnode: ${why}: exiting now\n`);
      process.exit(1);
    },
  });
  // A start that fails, or is stopped, leaves the datadir as it found it.
  const found =
    primary && plan.source.kind !== "archive" ? datadirAsFound(plan.datadir) : undefined;
  try {
    node = await startNode(plan, signals.signal);
  } catch (e) {
    // By now the node has released the datadir. Not one another process holds.
    if (!(e instanceof DatadirUnavailableError)) found?.restore();
    if (signals.signal.aborted) throw new StopRequested("stopped while starting");
    signals.dispose();
    throw e;
  }
  if (signals.signal.aborted) {
    // The signal came as the start finished.
    stop(0);
    return;
  }
  if (node.process === "primary") printAfterLogs(plan.logger, banner(plan, node, details));
  void node.failed.then((e) => {
    // One line, as every operator error is (src/cli/main.ts); a reader's primary says it.
    if (primary) process.stderr.write(`flashnode: ${e.message}\n`);
    stop(primary ? 1 : 0);
  });
}

/** The start banner: the same lines in every role, with the role's own details. */
export function banner(plan: NodePlan, node: RunningNode, details: readonly string[]): string {
  const keyNote = plan.frontend.generatedKey
    ? "   (key generated for this run; set --api-key)"
    : plan.frontend.apiKeys.has(DEV_LOCAL_API_KEY)
      ? "   (dev's key on this machine; --api-key sets another)"
      : "";
  const live = plan.source.kind !== "archive";
  const lines = [
    "",
    `flashnode ${node.role}`,
    "",
    ...accountLines(node),
    `Chain ID: ${node.chainId}    head: block ${node.head}${details.length > 0 ? `    ${details.join("    ")}` : ""}`,
    ...(node.fork === undefined
      ? []
      : [
          // A follower starts from its upstream's block too, but it follows that chain.
          plan.source.kind === "follow"
            ? `Following ${node.fork.name ?? `chain ${node.fork.chainId}`} from block ${node.fork.number} (upstream ${node.fork.host})`
            : `Forked from ${node.fork.name ?? `chain ${node.fork.chainId}`} at block ${node.fork.number} (upstream ${node.fork.host})`,
        ]),
    ...(node.resumedAt === undefined
      ? []
      : [`Continuing the chain in the datadir from block ${node.resumedAt}`]),
    `Data: ${node.datadir}`,
    `RPC processes: ${node.readers}${node.readers > 1 ? " (--rpc-workers)" : ""}`,
    "",
    `JSON-RPC (public):     ${node.url}`,
    `JSON-RPC (dedicated):  ${node.dedicatedUrl}${keyNote}`,
    `WebSocket:             ${node.wsUrl}`,
    ...(live ? [`Flashblocks stream:    ${node.wsUrl}flashblocks`] : []),
    `Metrics:               ${node.url}metrics`,
    `Live page:             ${node.url}ui`,
    ...(node.upstream === undefined
      ? []
      : // Another's URLs may carry its keys (the node's own dedicated URL above is shown whole).
        [`${`${node.upstream.label}:`.padEnd(23)}${redactText(node.upstream.url)}`]),
    ...(node.publishing === undefined
      ? []
      : [
          `${"Publishing to NATS:".padEnd(23)}${redactText(node.publishing.where)}`,
          `${"Publisher:".padEnd(23)}${node.publishing.id}, ${node.publishing.role()} now (elected by lease: /readyz and flashnode_follow_publisher_role say the role as it changes)`,
        ]),
    "",
    describePolicy(plan.frontend.policy),
    "",
  ];
  return `${lines.join("\n")}\n`;
}

/** dev's test accounts, as anvil prints them. */
function accountLines(node: RunningNode): string[] {
  if (node.role !== "dev") return [];
  if (node.accounts.length === 0)
    return [
      "No prefunded accounts: this chain's genesis funds none of the test mnemonic's.",
      `Transactions signed for chain id ${node.chainId} by the chain's own keys are accepted.`,
      "",
    ];
  return [
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
  ];
}
