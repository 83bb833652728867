// `dev --fork-url URL` and its companions (anvil's names): the upstream a chain is forked from,
// checked before anything starts.
import type { ForkPlan } from "../node/plan.ts";
import { checkUpstreamUrl, parseUpstreamHeader, upstreamOptions } from "../upstream/options.ts";
import { UsageError } from "../util/errors.ts";
import { parseDuration } from "./options.ts";

/** The fork the flags ask for, or undefined without --fork-url (the other flags then refused). */
export function forkPlan(values: ReadonlyMap<string, unknown>): ForkPlan | undefined {
  const url = values.get("fork-url") as string | undefined;
  const number = values.get("fork-block-number") as string | undefined;
  const chainId = values.get("fork-chain-id") as number | undefined;
  const headers = (values.get("fork-header") as readonly string[] | undefined) ?? [];
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
    options: upstreamOptions(url, {
      headers: Object.fromEntries(headers.map(parseUpstreamHeader)),
      retries: values.get("fork-retries") as number,
      retryBackoffMs: parseDuration("fork-retry-backoff", values.get("fork-retry-backoff"), "ms"),
      timeoutMs: parseDuration("fork-timeout", values.get("fork-timeout"), "ms"),
    }),
    ...(blockNumber === undefined ? {} : { blockNumber }),
    ...(chainId === undefined ? {} : { chainId: BigInt(chainId) }),
  };
}
