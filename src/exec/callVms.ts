// The VMs eth_call, eth_estimateGas and eth_createAccessList run on: one made for a call is
// kept for the calls after it (making one costs about a millisecond: a Common, an opcode table,
// the EVM), with what differs from call to call (the state, the block's hashes, the deadline)
// set on it before each.
import type { Common } from "@ethereumjs/common";
import type { VM } from "@ethereumjs/vm";
import type { StateView } from "../pending/pendingState.ts";
import { deadlineOpcodes } from "./deadlineOpcodes.ts";
import { FlatStateManager } from "./flatStateManager.ts";
import { createNodeVm } from "./nodeVm.ts";

/** The block a call runs in (its header fields and the hashes BLOCKHASH may ask for). */
export type CallBlockEnv = {
  readonly number: bigint;
  readonly timestamp: bigint;
  readonly gasLimit: bigint;
  readonly baseFeePerGas: bigint | undefined;
  readonly coinbase: Uint8Array;
  readonly prevRandao: Uint8Array;
  readonly excessBlobGas: bigint | undefined;
  readonly blockHash: (number: number) => Uint8Array | undefined;
};

/** A VM over flat state (reads from `source`, writes kept in memory), at `common`'s fork. */
export async function flatVm(
  common: Common,
  source: StateView,
  blockHash: (number: number) => Uint8Array | undefined,
  deadline?: number | (() => number),
): Promise<{ vm: VM; state: FlatStateManager }> {
  const state = new FlatStateManager(source, { common });
  const vm = await createNodeVm({
    common,
    // `deadline` (performance.now() time): the run throws EvmTimeoutError past it.
    ...(deadline === undefined
      ? {}
      : { evmOpts: { customOpcodes: deadlineOpcodes(common, deadline) } }),
    stateManager: state,
    blockHash,
    missing: "throw",
  });
  return { vm, state };
}

/**
 * A VM a call runs on, kept for later calls. `clean`: no run on it threw (a throw can leave
 * the EVM's journal mid-transaction), so it may be kept.
 */
export type KeptVm = {
  readonly vm: VM;
  readonly state: FlatStateManager;
  readonly key: string;
  blockHash: (number: number) => Uint8Array | undefined;
  deadline: number;
  clean: boolean;
};

/** Idle VMs kept per fork and kind (calls at once each take one; more are made as needed). */
const KEPT_VMS = 4;

export class CallVms {
  /** Idle VMs by fork and whether they check a deadline. */
  private readonly idle = new Map<string, KeptVm[]>();
  /** A Common only asked which fork a block is at. */
  private readonly forkOf: Common;

  constructor(private readonly common: Common) {
    this.forkOf = common.copy();
  }

  /**
   * A VM at `env`'s fork over `source`, kept from an earlier call when one is idle; give it
   * back with release(). `deadline` (performance.now() time): the run throws EvmTimeoutError
   * past it.
   */
  async take(source: StateView, env: CallBlockEnv, deadline?: number): Promise<KeptVm> {
    const fork = this.forkOf.setHardforkBy({ blockNumber: env.number, timestamp: env.timestamp });
    const key = `${fork}:${deadline !== undefined}`;
    const kept = this.idle.get(key)?.pop();
    if (kept !== undefined) {
      kept.state.reset(source);
      kept.blockHash = env.blockHash;
      kept.deadline = deadline ?? Number.POSITIVE_INFINITY;
      return kept;
    }
    const common = this.common.copy();
    common.setHardforkBy({ blockNumber: env.number, timestamp: env.timestamp });
    const out: Omit<KeptVm, "vm" | "state"> = {
      key,
      blockHash: env.blockHash,
      deadline: deadline ?? Number.POSITIVE_INFINITY,
      clean: true,
    };
    const { vm, state } = await flatVm(
      common,
      source,
      (n) => made.blockHash(n),
      deadline === undefined ? undefined : () => made.deadline,
    );
    const made: KeptVm = { ...out, vm, state };
    return made;
  }

  /** `kept` is idle again: kept for a later call, unless a run on it threw. */
  release(kept: KeptVm): void {
    if (!kept.clean) return;
    const list = this.idle.get(kept.key) ?? [];
    if (list.length < KEPT_VMS) list.push(kept);
    this.idle.set(kept.key, list);
  }
}
