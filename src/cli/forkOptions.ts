// `dev --fork-url URL` and its companions (anvil's names): the upstream a chain is forked from,
// checked before anything starts.
import type { ForkPlan } from "../node/plan.ts";
import {
  checkUpstreamUrl,
  parseUpstreamHeader,
  type UpstreamOptions,
  upstreamOptions,
} from "../upstream/options.ts";
import { UsageError } from "../util/errors.ts";
import type { OptionValues } from "./optionTable.ts";

/**
 * The upstream at `url` with --fork-header, --fork-retries, --fork-retry-backoff and
 * --fork-timeout: a fork's (dev, replica) or a follower's --rpc.
 */
export function upstreamFrom(
  url: string,
  values: OptionValues<"dev" | "replica" | "follow">,
): UpstreamOptions {
  return upstreamOptions(url, {
    headers: Object.fromEntries((values["fork-header"] ?? []).map(parseUpstreamHeader)),
    retries: values["fork-retries"],
    retryBackoffMs: values["fork-retry-backoff"],
    timeoutMs: values["fork-timeout"],
  });
}

/** The fork the flags ask for, or undefined without --fork-url (the other flags then refused). */
export function forkPlan(values: OptionValues<"dev">): ForkPlan | undefined {
  const url = values["fork-url"];
  const number = values["fork-block-number"];
  const chainId = values["fork-chain-id"];
  const headers = values["fork-header"] ?? [];
  if (url === undefined) {
    const stray = [
      number === undefined ? undefined : "--fork-block-number",
      chainId === undefined ? undefined : "--fork-chain-id",
      headers.length === 0 ? undefined : "--fork-header",
    ].filter((f) => f !== undefined);
    if (stray.length > 0) throw new UsageError(`${stray.join(", ")} need --fork-url`);
    return undefined;
  }
  checkUpstreamUrl(url);
  let blockNumber: bigint | undefined;
  if (number !== undefined) {
    if (!/^-?\d+$/.test(number.trim()))
      throw new UsageError(
        `--fork-block-number must be a whole number (negative: below the upstream's head, as --fork-block-number=-5), got ${number}`,
      );
    blockNumber = BigInt(number.trim());
  }
  if (chainId !== undefined && (blockNumber === undefined || blockNumber < 0n))
    throw new UsageError(
      "--fork-chain-id needs --fork-block-number (a block number, not negative): an offline start forks a known block",
    );
  return {
    options: upstreamFrom(url, values),
    ...(blockNumber === undefined ? {} : { blockNumber }),
    ...(chainId === undefined ? {} : { chainId: BigInt(chainId) }),
  };
}
