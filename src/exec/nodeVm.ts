// How this node makes an EVM, every time: the library's VM over a state manager of ours, with
// BLOCKHASH answered by a lookup (blocks enter the archive through the importer or the
// sequencer, never through the VM) and this node's interpreter loop (vmInterpreter.ts).
import type { Common, StateManagerInterface } from "@ethereumjs/common";
import type { EVMOpts } from "@ethereumjs/evm";
import { createVM, type VM } from "@ethereumjs/vm";
import { useSyncInterpreter } from "./vmInternals.ts";

export type NodeVmOptions = {
  readonly common: Common;
  readonly stateManager: StateManagerInterface;
  /**
   * The hash of block `n` for BLOCKHASH; `missing` says what an unknown block is: an error (the
   * run fails, as geth fails a lookup it cannot make) or a zero hash (a dry run, a simulation).
   */
  readonly blockHash: (n: number) => Uint8Array | undefined | Promise<Uint8Array | undefined>;
  readonly missing: "throw" | "zero";
  readonly evmOpts?: EVMOpts;
  readonly setHardfork?: boolean;
};

export async function createNodeVm(o: NodeVmOptions): Promise<VM> {
  const vm = await createVM({
    common: o.common,
    stateManager: o.stateManager,
    ...(o.evmOpts === undefined ? {} : { evmOpts: o.evmOpts }),
    ...(o.setHardfork === undefined ? {} : { setHardfork: o.setHardfork }),
    blockchain: {
      getBlock: async (n: number) => {
        const hash = await o.blockHash(n);
        if (hash !== undefined) return { hash: () => hash };
        if (o.missing === "zero") return { hash: () => new Uint8Array(32) };
        throw new Error(`block ${n} not found`);
      },
      putBlock: async () => {},
      shallowCopy() {
        return this;
      },
    },
  });
  useSyncInterpreter(vm.evm);
  return vm;
}
