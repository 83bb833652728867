// The serving side's options (FrontendOptions) from the parsed flags: API keys and their limits,
// the method policy, body/batch/response limits and timeouts.

import { randomBytes } from "node:crypto";
import { DEFAULT_POLICY, parsePolicy } from "../edge/policy.ts";
import type { RateLimit } from "../edge/rateLimit.ts";
import { SUBSCRIPTION_METHODS } from "../feed/subscriptions.ts";
import type { FrontendOptions } from "../node/frontend.ts";
import { METHOD_NAMES } from "../rpc/methods.ts";
import { UsageError } from "../util/errors.ts";
import type { OptionValues } from "./optionTable.ts";
import type { NodeCommand } from "./optionTypes.ts";

/**
 * dev's dedicated key when it listens only on this machine and none is given: a fixed one, so
 * that the README's examples work as pasted (on loopback the key guards nothing a local client
 * could not do anyway). On any other address, or for serve and replica, a random one per run.
 */
export const DEV_LOCAL_API_KEY = "local-dev-key";

export function frontendOptions(
  values: OptionValues<NodeCommand>,
  /** The key to serve when none is given (else a random one is generated). */
  defaultKey?: string,
): FrontendOptions {
  const keys = values["api-key"] ?? [];
  const generatedKey = keys.length === 0 && defaultKey === undefined;
  const keyRate = values["key-rate-limit"];
  const perKey = keyLimits(values["key-limits"], keys);
  const apiKeys = new Map<string, RateLimit | undefined>();
  const served = keys.length > 0 ? keys : [defaultKey ?? randomBytes(12).toString("hex")];
  for (const key of served) {
    if (!/^[A-Za-z0-9_-]{8,128}$/.test(key))
      throw new UsageError(`API keys are 8-128 characters of A-Z a-z 0-9 _ -: ${key}`);
    const own = perKey[key];
    const rate = own?.rate ?? keyRate;
    apiKeys.set(key, rate > 0 ? { rate, burst: own?.burst ?? rate * 2 } : undefined);
  }
  const rate = values["rate-limit"];
  let policy = DEFAULT_POLICY;
  if (values.policy !== undefined) {
    try {
      policy = parsePolicy(values.policy, [...METHOD_NAMES, ...SUBSCRIPTION_METHODS]);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  return {
    host: values.host,
    port: values.port,
    apiKeys,
    generatedKey,
    publicRateLimit: rate > 0 ? { rate, burst: Math.max(values["rate-burst"], 1) } : undefined,
    exemptLoopback: !values["rate-limit-loopback"],
    policy,
    corsOrigins: values.cors,
    bodyLimit: values["body-limit"],
    batchLimit: values["batch-limit"],
    responseLimit: values["response-limit"],
    requestTimeoutMs: values["request-timeout"],
    headerTimeoutMs: values["header-timeout"],
    readTimeoutMs: values["read-timeout"],
    idleTimeoutMs: values["idle-timeout"],
    maxConnections: values["max-connections"],
  };
}

type KeyLimit = { readonly rate?: number; readonly burst?: number };

/**
 * --key-limits checked as a whole: a limit silently ignored (a misspelt key, a bare number) would
 * leave that key unlimited.
 */
function keyLimits(raw: unknown, keys: readonly string[]): Record<string, KeyLimit> {
  if (raw === undefined) return {};
  const shape = '{"<key>":{"rate":N,"burst":N}}';
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new UsageError(`--key-limits must be an object ${shape}`);
  const limits = raw as Record<string, unknown>;
  for (const [key, limit] of Object.entries(limits)) {
    if (!keys.includes(key))
      throw new UsageError(`--key-limits names "${key}", which is not a key given with --api-key`);
    const fields = typeof limit === "object" && limit !== null ? Object.entries(limit) : [];
    const wholeNumber = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
    if (
      fields.length === 0 ||
      !fields.every(([name, v]) => (name === "rate" || name === "burst") && wholeNumber(v))
    )
      throw new UsageError(
        `--key-limits: the limit of "${key}" must be {"rate":N,"burst":N} (whole numbers), got ${JSON.stringify(limit)}`,
      );
  }
  return limits as Record<string, KeyLimit>;
}
