// The chain config of a chain forked from a live one at block F (dev --fork-url, follow): the
// upstream's chain id; every fork up to what F's header shows active from the start, and the
// later ones up to the asked hardfork from the block after F; on an OP-stack chain, op-geth's
// keys with the chain's own EIP-1559 parameters. No allocations: the state is the upstream's.

import { FlashnodeError } from "../util/errors.ts";
import { type DevFork, genesisConfig, sampleBlobSchedule } from "./devGenesis.ts";
import type { HeaderEra } from "./headerJson.ts";
import type { Eip1559Params } from "./op/knownChains.ts";

export class ForkGenesisError extends FlashnodeError {
  readonly code = "FORK_GENESIS";
}

export type ForkGenesisOptions = {
  readonly chainId: bigint;
  readonly era: HeaderEra;
  /** The EVM rules the chain's own blocks run (--hardfork). */
  readonly hardfork: DevFork;
  readonly forkNumber: bigint;
  readonly forkTimestamp: bigint;
  readonly gasLimit: bigint;
  readonly baseFeePerGas: bigint;
  /** Set for an OP-stack chain. */
  readonly op?: Eip1559Params;
};

const ERA_RANK: Readonly<Record<HeaderEra, number>> = {
  legacy: 0,
  london: 1,
  shanghai: 2,
  cancun: 3,
  prague: 4,
};
const FORK_RANK: Readonly<Record<DevFork, number>> = { cancun: 3, prague: 4, osaka: 5 };

export function forkGenesis(o: ForkGenesisOptions): Record<string, unknown> {
  const era = ERA_RANK[o.era];
  if (era < ERA_RANK.london)
    throw new ForkGenesisError(
      `block ${o.forkNumber} predates London (no base fee): flashnode forks chains from London on`,
    );
  const wanted = FORK_RANK[o.hardfork];
  if (wanted < era)
    throw new ForkGenesisError(
      `block ${o.forkNumber} already runs ${o.era}: --hardfork ${o.hardfork} cannot go below the upstream's rules`,
    );
  // Active at F already: from the start; newer: from the first block the fork builds.
  const next = Number(o.forkTimestamp + 1n);
  const at = (rank: number) => (era >= rank ? 0 : next);
  const times: Record<string, number> = { shanghaiTime: at(2), cancunTime: at(3) };
  if (wanted >= 4) times.pragueTime = at(4);
  if (wanted >= 5) times.osakaTime = at(5);
  return {
    config: genesisConfig({
      chainId: o.chainId,
      times,
      hardfork: o.hardfork,
      blobSchedule: sampleBlobSchedule(),
      ...(o.op === undefined ? {} : { op: o.op }),
    }),
    nonce: "0x0",
    timestamp: `0x${o.forkTimestamp.toString(16)}`,
    extraData: "0x",
    gasLimit: `0x${o.gasLimit.toString(16)}`,
    difficulty: "0x0",
    mixHash: `0x${"00".repeat(32)}`,
    coinbase: `0x${"00".repeat(20)}`,
    baseFeePerGas: `0x${o.baseFeePerGas.toString(16)}`,
    number: `0x${o.forkNumber.toString(16)}`,
    alloc: {},
  };
}
