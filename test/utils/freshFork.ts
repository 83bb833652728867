// A forked chain that has written nothing since its base block F, for the follower's prefetch and
// dry-run tests: every read is the upstream's. The executor's state over it is built as the
// follower's worker builds its own (exec/state over the archive head, our interpreter loop).

import { KECCAK256_RLP } from "@ethereumjs/util";
import type { VM } from "@ethereumjs/vm";
import { createVM } from "@ethereumjs/vm";
import type { ChainSpec } from "../../src/chain/genesis.ts";
import { RecordingStateManager } from "../../src/exec/recordingStateManager.ts";
import { useSyncInterpreter } from "../../src/exec/vmInternals.ts";
import { type DryRunBlock, dryRunBlockOf } from "../../src/follow/discovery.ts";
import type { UpstreamState } from "../../src/services/upstreamState.ts";
import { keccak256 } from "../../src/util/crypto.ts";
import { workloadBlock } from "./evmWorkload.ts";
import { MemoryHead } from "./memoryHead.ts";

/** F: block 0 of the local chain. */
export const FORK_HEAD = { number: 0, hash: new Uint8Array(32).fill(7) };
const EMPTY = new Uint8Array(0);

/** The archive of a chain that wrote nothing since F. */
export const freshStore = {
  headNumber: () => FORK_HEAD.number,
  canonicalHash: (n: number) => (n === FORK_HEAD.number ? FORK_HEAD.hash : undefined),
  currentAccount: () => undefined,
  currentStorage: () => EMPTY,
  currentStorageSlots: () => [],
  code: () => undefined,
  accountKnown: () => false,
  slotKnown: () => false,
};

/** The dry-run view of the block a test's flashblock runs in (workloadBlock's header). */
export function flashblockBlockOf(vm: VM): DryRunBlock {
  return dryRunBlockOf(workloadBlock(vm, 1n).header);
}

/** The executor's state on that chain, reading `upstream`. */
export async function freshForkVm(spec: ChainSpec, upstream: UpstreamState): Promise<VM> {
  const head = new MemoryHead();
  head.head = FORK_HEAD;
  head.roots.set(FORK_HEAD.number, KECCAK256_RLP);
  const state = new RecordingStateManager(head.headReads(upstream), head.trie(), keccak256);
  state.moveToHead();
  const vm = await createVM({ common: spec.common.copy(), stateManager: state, setHardfork: true });
  useSyncInterpreter(vm.evm);
  return vm;
}
