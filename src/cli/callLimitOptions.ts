// --rpc-gascap and --rpc-evmtimeout, as the call workers of dev, serve and replica take them.
import type { CallLimits } from "../exec/callLimits.ts";
import { parseDuration } from "./options.ts";
import type { OptionValue } from "./optionValues.ts";

export function callLimitOptions(values: ReadonlyMap<string, OptionValue>): CallLimits {
  return {
    gasCap: BigInt(values.get("rpc-gascap") as number),
    evmTimeoutMs: parseDuration("rpc-evmtimeout", values.get("rpc-evmtimeout"), "s"),
  };
}
