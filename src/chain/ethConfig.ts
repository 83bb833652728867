// EIP-7910 (eth_config): the fork a chain is in, the next scheduled one and the last one, each
// with its blob parameters, fork id, precompiles and system contracts, derived from the geth
// genesis config as geth derives them (internal/ethapi Config, params.ChainConfig).
import { configNumber, forkId } from "./forkId.ts";

type GenesisConfig = Readonly<Record<string, unknown>>;

/** geth's timestamp forks in its order (params/forks); Paris, before them, has no timestamp. */
const TIME_FORKS = [
  "shanghai",
  "cancun",
  "prague",
  "osaka",
  "bpo1",
  "bpo2",
  "bpo3",
  "bpo4",
  "bpo5",
  "amsterdam",
  "bogota",
] as const;
type TimeFork = (typeof TIME_FORKS)[number];
/** A fork's position in TIME_FORKS; -1 is Paris. */
type ForkIndex = number;
const PARIS: ForkIndex = -1;
const at = (fork: TimeFork): ForkIndex => TIME_FORKS.indexOf(fork);

const PRECOMPILE_NAMES: ReadonlyArray<readonly [number, string]> = [
  [0x01, "ECREC"],
  [0x02, "SHA256"],
  [0x03, "RIPEMD160"],
  [0x04, "ID"],
  [0x05, "MODEXP"],
  [0x06, "BN254_ADD"],
  [0x07, "BN254_MUL"],
  [0x08, "BN254_PAIRING"],
  [0x09, "BLAKE2F"],
  [0x0a, "KZG_POINT_EVALUATION"],
  [0x0b, "BLS12_G1ADD"],
  [0x0c, "BLS12_G1MSM"],
  [0x0d, "BLS12_G2ADD"],
  [0x0e, "BLS12_G2MSM"],
  [0x0f, "BLS12_PAIRING_CHECK"],
  [0x10, "BLS12_MAP_FP_TO_G1"],
  [0x11, "BLS12_MAP_FP2_TO_G2"],
  [0x100, "P256VERIFY"],
];

const SYSTEM_CONTRACTS = {
  BEACON_ROOTS_ADDRESS: "0x000f3df6d732807ef1319fb7b8bb8522d0beac02",
  HISTORY_STORAGE_ADDRESS: "0x0000f90827f1c53a10cb7a02335b175320002935",
  WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS: "0x00000961ef480eb55e80d19ad83579a64c007002",
  CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS: "0x0000bbddc7ce488642fb579f8b00f3a590007251",
  BUILDER_DEPOSIT_CONTRACT_ADDRESS: "0x0000bff46984e3725691fa540a8c7589300d8282",
  BUILDER_EXIT_CONTRACT_ADDRESS: "0x000064d678505ad48f8ccb093bc65613800e8282",
} as const;

export type BlobParams = {
  readonly target: number;
  readonly max: number;
  readonly baseFeeUpdateFraction: number;
};

export type ForkConfig = {
  readonly activationTime: bigint;
  /** undefined before Cancun (geth answers null). */
  readonly blobSchedule: BlobParams | undefined;
  readonly chainId: bigint;
  readonly forkId: Uint8Array;
  /** name → address, sorted by name (a Go map's JSON order). */
  readonly precompiles: ReadonlyArray<readonly [string, string]>;
  readonly systemContracts: ReadonlyArray<readonly [string, string]>;
};

export type EthConfig = {
  readonly current: ForkConfig | undefined;
  readonly next: ForkConfig | undefined;
  readonly last: ForkConfig | undefined;
};

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const byName = (a: readonly [string, string], b: readonly [string, string]) =>
  a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;

/** The chain's fork schedule, read once from the genesis config. */
export class ForkSchedule {
  private readonly london: bigint | undefined;
  private readonly times: ReadonlyArray<bigint | undefined>;

  constructor(private readonly config: GenesisConfig) {
    this.london = configNumber(config.londonBlock);
    this.times = TIME_FORKS.map((f) => configNumber(config[`${f}Time`]));
  }

  /** Whether a block fork is active by London's block (geth's Rules(londonBlock, …)). */
  private byLondon(field: string): boolean {
    const n = configNumber(this.config[field]);
    return n !== undefined && this.london !== undefined && n <= this.london;
  }

  private timeActive(fork: TimeFork | "ubt", time: bigint): boolean {
    const t = configNumber(this.config[`${fork}Time`]);
    return this.london !== undefined && t !== undefined && t <= time;
  }

  /** geth's LatestFork: the newest timestamp fork active at `time`, else Paris. */
  latestFork(time: bigint): ForkIndex {
    if (this.london === undefined) return PARIS;
    for (let i = TIME_FORKS.length - 1; i >= 0; i--) {
      const t = this.times[i];
      if (t !== undefined && t <= time) return i;
    }
    return PARIS;
  }

  /** The newest fork active at `time`, named as anvil names its hardforks ("Prague", "Bpo1"). */
  latestForkName(time: bigint): string {
    const i = this.latestFork(time);
    const name = i === PARIS ? "paris" : TIME_FORKS[i]!;
    return name.charAt(0).toUpperCase() + name.slice(1);
  }

  timestamp(fork: ForkIndex): bigint | undefined {
    return fork < 0 ? undefined : this.times[fork];
  }

  /** geth's ActivePrecompiledContracts for Rules(londonBlock, merged, time). */
  private precompiles(time: bigint): number[] {
    const upTo = (last: number) => PRECOMPILE_NAMES.map(([a]) => a).filter((a) => a <= last);
    if (this.timeActive("ubt", time)) return upTo(0x09);
    if (this.timeActive("bogota", time) || this.timeActive("osaka", time)) return upTo(0x100);
    if (this.timeActive("prague", time)) return upTo(0x11);
    if (this.timeActive("cancun", time)) return upTo(0x0a);
    if (this.byLondon("berlinBlock") || this.byLondon("istanbulBlock")) return upTo(0x09);
    if (this.byLondon("byzantiumBlock")) return upTo(0x08);
    return upTo(0x04);
  }

  /** geth's BlobConfig: the newest blob schedule entry at or before the fork. */
  private blobParams(fork: ForkIndex): BlobParams | undefined {
    const schedule = this.config.blobSchedule;
    if (typeof schedule !== "object" || schedule === null) return undefined;
    const entries = schedule as Record<string, unknown>;
    for (const name of ["bpo5", "bpo4", "bpo3", "bpo2", "bpo1", "prague", "cancun"] as const) {
      const entry = entries[name];
      if (at(name) > fork || typeof entry !== "object" || entry === null) continue;
      const e = entry as Record<string, unknown>;
      return {
        target: Number(e.target ?? 0),
        max: Number(e.max ?? 0),
        baseFeeUpdateFraction: Number(e.baseFeeUpdateFraction ?? 0),
      };
    }
    return undefined;
  }

  /** geth's ActiveSystemContracts. */
  private systemContracts(fork: ForkIndex): Array<[string, string]> {
    const out: Array<[string, string]> = [];
    const c = SYSTEM_CONTRACTS;
    if (fork >= at("amsterdam"))
      out.push(
        ["BUILDER_DEPOSIT_CONTRACT_ADDRESS", c.BUILDER_DEPOSIT_CONTRACT_ADDRESS],
        ["BUILDER_EXIT_CONTRACT_ADDRESS", c.BUILDER_EXIT_CONTRACT_ADDRESS],
      );
    if (fork >= at("prague")) {
      const deposit = String(this.config.depositContractAddress ?? "").toLowerCase();
      out.push(
        ["CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS", c.CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS],
        ["DEPOSIT_CONTRACT_ADDRESS", /^0x[0-9a-f]{40}$/.test(deposit) ? deposit : address(0)],
        ["HISTORY_STORAGE_ADDRESS", c.HISTORY_STORAGE_ADDRESS],
        ["WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS", c.WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS],
      );
    }
    if (fork >= at("cancun")) out.push(["BEACON_ROOTS_ADDRESS", c.BEACON_ROOTS_ADDRESS]);
    return out.sort(byName);
  }

  private assemble(
    time: bigint | undefined,
    chainId: bigint,
    genesis: { readonly hash: Uint8Array; readonly timestamp: bigint },
  ): ForkConfig | undefined {
    if (time === undefined) return undefined;
    const names = new Map(PRECOMPILE_NAMES);
    return {
      // A fork active from genesis reports 0.
      activationTime: genesis.timestamp >= time ? 0n : time,
      blobSchedule: this.blobParams(this.latestFork(time)),
      chainId,
      // Every block fork counts as passed: eth_config is about timestamp forks.
      forkId: forkId(this.config, genesis, 2n ** 64n - 1n, time).hash,
      precompiles: this.precompiles(time)
        .map((a): [string, string] => [names.get(a)!, address(a)])
        .sort(byName),
      systemContracts: this.systemContracts(this.latestFork(time)),
    };
  }

  /** eth_config for a chain whose newest block has timestamp `headTime`. */
  ethConfig(
    chainId: bigint,
    genesis: { readonly hash: Uint8Array; readonly timestamp: bigint },
    headTime: bigint,
  ): EthConfig {
    const latest = this.latestFork(headTime);
    const next = this.assemble(this.timestamp(latest + 1), chainId, genesis);
    return {
      current: this.assemble(this.timestamp(latest), chainId, genesis),
      next,
      // No fork scheduled next: no last either.
      last:
        next === undefined
          ? undefined
          : this.assemble(this.timestamp(this.latestFork(2n ** 64n - 1n)), chainId, genesis),
    };
  }
}
