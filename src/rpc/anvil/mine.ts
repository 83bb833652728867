import type { RpcBackend } from "../../services/backend.ts";
import { devControl, devNumberUpTo, parseDevNumber } from "../dev/devControl.ts";
import { defineMethod, optional } from "../method.ts";

/** Each block is a sealed, stored block here (anvil only builds them in memory): a bound keeps
 * one call from holding the sequencer for minutes. */
export const MAX_MINE_BLOCKS = 10_000n;

/**
 * anvil_mine(blocks = 1, interval?) (hardhat_mine) → null: seals the block being built, then
 * blocks - 1 more, `interval` seconds apart when given.
 */
export function mineBlocks(backend: RpcBackend) {
  return defineMethod({
    params: [optional(devNumberUpTo(MAX_MINE_BLOCKS, "block count")), optional(parseDevNumber)],
    handler: async ([blocks, interval]) => {
      const count = blocks ?? 1n;
      if (count > 0n)
        await devControl(backend, { op: "mine", blocks: count, interval, timestamp: undefined });
      return null;
    },
  });
}
