import type { RpcBackend } from "../../services/backend.ts";
import { InvalidParamsError } from "../../services/errors.ts";
import { MAX_MINE_BLOCKS } from "../anvil/mine.ts";
import { devControl, parseDevNumber } from "../dev/devControl.ts";
import { transactionSink } from "../eth/sendRawTransaction.ts";
import { defineMethod, optional } from "../method.ts";

/** anvil's MineOptions: a timestamp, or `{timestamp?, blocks?}`. */
export type MineOptions = { readonly timestamp?: bigint; readonly blocks?: bigint };

export function parseMineOptions(raw: unknown): MineOptions {
  if (typeof raw === "object" && raw !== null && !Array.isArray(raw)) {
    const o = raw as Record<string, unknown>;
    const timestamp = o.timestamp == null ? undefined : parseDevNumber(o.timestamp);
    const blocks = o.blocks == null ? undefined : parseDevNumber(o.blocks);
    if (blocks !== undefined && blocks > MAX_MINE_BLOCKS)
      throw new InvalidParamsError(`block count ${blocks} is above ${MAX_MINE_BLOCKS}`);
    return {
      ...(timestamp === undefined ? {} : { timestamp }),
      ...(blocks === undefined ? {} : { blocks }),
    };
  }
  return { timestamp: parseDevNumber(raw) };
}

/**
 * evm_mine(options?) → "0x0" (anvil and Hardhat): seals the block being built now, with
 * everything sent before the call; `timestamp` is the mined block's when that block holds no
 * transactions yet (else the next block's), `blocks` more than one.
 */
export function mine(backend: RpcBackend) {
  return defineMethod({
    params: [optional(parseMineOptions)],
    handler: async ([options]) => {
      if (
        options === undefined ||
        (options.timestamp === undefined && options.blocks === undefined)
      )
        await transactionSink(backend).mine();
      else
        await devControl(backend, {
          op: "mine",
          blocks: options.blocks ?? 1n,
          interval: undefined,
          timestamp: options.timestamp,
        });
      return "0x0";
    },
  });
}
