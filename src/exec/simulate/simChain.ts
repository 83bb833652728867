// The simulated chain's shape before anything runs (geth's sanitizeChain and makeHeaders): block
// numbers and timestamps in order, gaps filled with empty blocks, and each header's fields taken
// from the block before it and the block's overrides.

import {
  type BlockOverrides,
  MAX_SIMULATE_BLOCKS,
  type SimulateBlock,
  type SimulateCall,
  type StateOverrides,
  type WithdrawalOverride,
} from "../../services/simulate.ts";
import { CallFailedError } from "../callExecutor.ts";
import { SIM_CODE } from "./simTx.ts";

/** geth's maxSimulateBlocks: how far past the base block a simulation may reach. */
const MAX_BLOCKS = BigInt(MAX_SIMULATE_BLOCKS);
/** The timestamp step of a block whose time is not given. */
const TIMESTAMP_INCREMENT = 12n;

/** A block of the simulated chain with its number and time settled. */
export type ChainBlock = {
  readonly number: bigint;
  readonly time: bigint;
  readonly overrides: BlockOverrides | undefined;
  readonly withdrawals: readonly WithdrawalOverride[];
  readonly stateOverrides: StateOverrides | undefined;
  readonly calls: readonly SimulateCall[];
};

/** What the base block hands on to the first simulated block's header. */
export type BaseFields = {
  readonly number: bigint;
  readonly timestamp: bigint;
  readonly coinbase: Uint8Array;
  readonly difficulty: bigint;
  readonly gasLimit: bigint;
};

/** The header fields known before execution. */
export type PreHeader = {
  readonly number: bigint;
  readonly timestamp: bigint;
  readonly coinbase: Uint8Array;
  readonly difficulty: bigint;
  readonly gasLimit: bigint;
  readonly mixHash: Uint8Array;
  /** Only when overridden; otherwise set from the parent at execution. */
  readonly baseFeePerGas: bigint | undefined;
  /** Cancun on: the override or zero. */
  readonly parentBeaconBlockRoot: Uint8Array | undefined;
};

const fail = (message: string, code: number) => new CallFailedError(message, code, undefined);

/** Numbers strictly increasing (gaps filled), timestamps strictly increasing, within the limit. */
export function sanitizeChain(blocks: readonly SimulateBlock[], base: BaseFields): ChainBlock[] {
  const out: ChainBlock[] = [];
  let prevNumber = base.number;
  let prevTime = base.timestamp;
  for (const block of blocks) {
    const o = block.blockOverrides;
    const number = o?.number ?? prevNumber + 1n;
    if (number <= prevNumber) {
      // geth prints the number as a uint64 (wrapping a huge override).
      throw fail(
        `block numbers must be in order: ${BigInt.asUintN(64, number)} <= ${prevNumber}`,
        SIM_CODE.blockNumberInvalid,
      );
    }
    if (number - base.number > MAX_BLOCKS)
      throw fail("too many blocks", SIM_CODE.clientLimitExceeded);
    for (let n = prevNumber + 1n; n < number; n++) {
      prevTime += TIMESTAMP_INCREMENT;
      out.push({
        number: n,
        time: prevTime,
        overrides: undefined,
        withdrawals: [],
        stateOverrides: undefined,
        calls: [],
      });
    }
    prevNumber = number;
    let time: bigint;
    if (o?.time === undefined) {
      time = prevTime + TIMESTAMP_INCREMENT;
    } else {
      time = o.time;
      if (time <= prevTime)
        throw fail(
          `block timestamps must be in order: ${time} <= ${prevTime}`,
          SIM_CODE.blockTimestampInvalid,
        );
    }
    prevTime = time;
    out.push({
      number,
      time,
      overrides: o,
      withdrawals: o?.withdrawals ?? [],
      stateOverrides: block.stateOverrides,
      calls: block.calls,
    });
  }
  return out;
}

/**
 * Each header from the previous one (the base block's for the first): coinbase, gas limit and
 * difficulty carry over (difficulty is zero once merged), then the block's overrides apply.
 */
export function makeHeaders(
  blocks: readonly ChainBlock[],
  base: BaseFields,
  rules: {
    postMerge(number: bigint, timestamp: bigint): boolean;
    cancun(number: bigint, timestamp: bigint): boolean;
  },
): PreHeader[] {
  let prev: Pick<PreHeader, "coinbase" | "difficulty" | "gasLimit"> = base;
  return blocks.map((b) => {
    const o = b.overrides;
    const cancun = rules.cancun(b.number, b.time);
    const difficulty = rules.postMerge(b.number, b.time) ? 0n : prev.difficulty;
    const header: PreHeader = {
      number: b.number,
      timestamp: b.time,
      coinbase: o?.feeRecipient ?? prev.coinbase,
      difficulty: o?.difficulty ?? difficulty,
      gasLimit: o?.gasLimit ?? prev.gasLimit,
      mixHash: o?.prevRandao ?? new Uint8Array(32),
      baseFeePerGas: o?.baseFeePerGas,
      parentBeaconBlockRoot: cancun ? (o?.beaconRoot ?? new Uint8Array(32)) : undefined,
    };
    prev = header;
    return header;
  });
}
