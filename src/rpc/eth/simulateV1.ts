import type { RpcBackend } from "../../services/backend.ts";
import { ClientLimitExceededError, InvalidParamsError } from "../../services/errors.ts";
import {
  MAX_SIMULATE_BLOCKS,
  MAX_SIMULATE_CALLS_PER_BLOCK,
  MAX_SIMULATE_TOTAL_CALLS,
  type SimulatedBlock,
  type SimulatedCall,
  type SimulateRequest,
} from "../../services/simulate.ts";
import { array, data, object, qty } from "../../util/json.ts";
import { withCallErrors } from "../callFailure.ts";
import { blockJson } from "../format/block.ts";
import { defineMethod, optional, RawJson, required } from "../method.ts";
import { parseBlockSelector } from "../params.ts";
import { goJsonString } from "../wire.ts";
import { callService, callTarget } from "./callTarget.ts";
import { parseSimulateOptions } from "./simulateParams.ts";

/** The request limits geth checks before it looks at the base block. */
export function checkSimulateLimits(req: SimulateRequest): void {
  if (req.blocks.length === 0) throw new InvalidParamsError("empty input");
  if (req.blocks.length > MAX_SIMULATE_BLOCKS)
    throw new ClientLimitExceededError("too many blocks");
  let total = 0;
  for (const block of req.blocks) {
    const n = block.calls.length;
    if (n > MAX_SIMULATE_CALLS_PER_BLOCK)
      throw new ClientLimitExceededError(
        `too many calls in block: ${n} > ${MAX_SIMULATE_CALLS_PER_BLOCK}`,
      );
    total += n;
    if (total > MAX_SIMULATE_TOTAL_CALLS)
      throw new ClientLimitExceededError(`too many calls: ${total} > ${MAX_SIMULATE_TOTAL_CALLS}`);
  }
}

function callJson(call: SimulatedCall, index: number, b: SimulatedBlock): string {
  const h = b.block.header;
  const txHash = b.block.transactions[index]!.hash;
  const e = call.error;
  return object([
    ["returnData", data(call.returnData)],
    [
      "logs",
      array(call.logs, (log) =>
        object([
          ["address", data(log.address)],
          ["topics", array(log.topics, data)],
          ["data", data(log.data)],
          ["blockNumber", qty(h.number)],
          ["transactionHash", data(txHash)],
          ["transactionIndex", qty(index)],
          ["blockHash", data(h.hash)],
          ["blockTimestamp", qty(h.timestamp)],
          ["logIndex", qty(log.logIndex)],
          ["removed", "false"],
        ]),
      ),
    ],
    ["gasUsed", qty(call.gasUsed)],
    ["maxUsedGas", qty(call.maxUsedGas)],
    ["status", qty(call.status)],
    [
      "error",
      e === undefined
        ? undefined
        : object([
            ["message", goJsonString(e.message)],
            ["code", String(e.code)],
            ["data", e.data === undefined ? undefined : JSON.stringify(e.data)],
          ]),
    ],
  ]);
}

/** One simulated block: geth's block object (senders as `from`) plus its `calls`. */
export function simulatedBlockJson(b: SimulatedBlock, fullTransactions: boolean): string {
  const calls = array(b.calls, (c, i) => callJson(c, i, b));
  return blockJson(b.block, fullTransactions, b.senders, [["calls", calls]]);
}

/**
 * eth_simulateV1({blockStateCalls, traceTransfers, validation, returnFullTransactions}, block =
 * latest) → the simulated blocks, as geth builds them (overrides, calls, system calls, roots).
 */
export function simulateV1(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseSimulateOptions), optional(parseBlockSelector)],
    reads: "state",
    handler: async ([req, selector]) => {
      checkSimulateLimits(req);
      const target = callTarget(backend, selector);
      const blocks = await withCallErrors(() => callService(backend).simulate(req, target));
      return new RawJson(array(blocks, (b) => simulatedBlockJson(b, req.returnFullTransactions)));
    },
  });
}
