// How the sequencer seals blocks (anvil's mining modes): every block time (interval mining, dev's
// default), one block per transaction as soon as its flashblock is built (automine: --automine,
// --block-time 0, evm_setAutomine), or only when asked (evm_mine; evm_setIntervalMining(0), or
// evm_setAutomine(false) after automine). Flashblocks go on every interval in every mode: they
// are the pending view's heartbeat.

export type MiningMode = {
  /** A block per transaction, sealed as soon as its flashblock is. */
  readonly automine: boolean;
  /** Interval mining: a block sealed every this many ms; undefined: none. */
  readonly intervalMs: number | undefined;
};

/** The mode a sequencer starts in: automine, or a block every `blockTimeMs`. */
export function initialMining(automine: boolean, blockTimeMs: number): MiningMode {
  return automine || blockTimeMs <= 0
    ? { automine: true, intervalMs: undefined }
    : { automine: false, intervalMs: blockTimeMs };
}

/**
 * evm_setAutomine(on), as anvil switches: on replaces interval mining; off after automine
 * leaves no mining at all (blocks only by evm_mine), off otherwise changes nothing.
 */
export function withAutomine(mode: MiningMode, on: boolean): MiningMode {
  if (on) return { automine: true, intervalMs: undefined };
  return mode.automine ? { automine: false, intervalMs: undefined } : mode;
}

/** evm_setIntervalMining(seconds), as anvil's: a block every `seconds`; 0 stops mining. */
export function withIntervalMining(seconds: bigint): MiningMode {
  return seconds === 0n
    ? { automine: false, intervalMs: undefined }
    : { automine: false, intervalMs: Number(seconds) * 1000 };
}

/**
 * Whether the block time is up at a flashblock tick starting at `now` (ms): the block counts
 * from its opening, or from when interval mining began if that is later; half an interval early,
 * so that the last flashblock's slot is the seal's.
 */
export function blockTimeUp(
  mode: MiningMode,
  now: number,
  openedAt: number,
  miningSince: number,
  flashblockIntervalMs: number,
): boolean {
  if (mode.intervalMs === undefined) return false;
  return now - Math.max(openedAt, miningSince) + flashblockIntervalMs / 2 >= mode.intervalMs;
}
