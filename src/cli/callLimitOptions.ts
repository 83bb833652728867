// --rpc-gascap and --rpc-evmtimeout, as the call workers of dev, serve and replica take them.
import type { CallLimits } from "../exec/callLimits.ts";
import type { OptionValues } from "./optionTable.ts";
import type { NodeCommand } from "./optionTypes.ts";

export function callLimitOptions(values: OptionValues<NodeCommand>): CallLimits {
  return { gasCap: BigInt(values["rpc-gascap"]), evmTimeoutMs: values["rpc-evmtimeout"] };
}
