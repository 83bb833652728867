// --rpc-gascap and --rpc-evmtimeout, as the call workers of dev, serve and replica take them.
import type { CallLimits } from "../exec/callLimits.ts";
import { type OptionValue, parseDuration } from "./options.ts";

export function callLimitOptions(values: ReadonlyMap<string, OptionValue>): CallLimits {
  return {
    gasCap: BigInt(values.get("rpc-gascap") as number),
    evmTimeoutMs: parseDuration("rpc-evmtimeout", values.get("rpc-evmtimeout"), "s"),
  };
}
