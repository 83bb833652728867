// eth_simulateV1 over the archive: the base block (sealed, or the pre-confirmed block over its
// parent) resolved from the store, then the simulator run on it. Used by the call worker.
import { createBlockHeader, createBlockHeaderFromRLP } from "@ethereumjs/block";
import type { ChainSpec } from "../../chain/genesis.ts";
import type { PendingSnapshot } from "../../pending/pendingBlock.ts";
import { overlayPending, type StateView } from "../../pending/pendingState.ts";
import type { CallTarget } from "../../services/callRequest.ts";
import type { SimulatedBlock, SimulateRequest } from "../../services/simulate.ts";
import type { ChainStore } from "../../store/archive.ts";
import { CallFailedError } from "../callExecutor.ts";
import { type SimBase, Simulator } from "./simulator.ts";

export type SimulateStore = Pick<
  ChainStore,
  "canonicalHash" | "headerRlp" | "account" | "storage" | "code" | "trieNode"
>;

function sealedView(store: SimulateStore, number: number): StateView {
  return {
    account: (a) => store.account(a, number),
    storage: (a, s) => store.storage(a, s, number),
    code: (h) => store.code(h),
  };
}

function storedHeader(spec: ChainSpec, store: SimulateStore, number: number) {
  const hash = store.canonicalHash(number);
  const rlp = hash === undefined ? undefined : store.headerRlp(number, hash);
  if (rlp === undefined) throw new CallFailedError("header not found", -32000, undefined);
  return createBlockHeaderFromRLP(rlp, { common: spec.common, setHardfork: true });
}

/** The base block and the state it starts from. */
function simBase(
  spec: ChainSpec,
  store: SimulateStore,
  target: CallTarget,
  pending: PendingSnapshot | undefined,
): { base: SimBase; source: StateView } {
  if (target.pending && pending !== undefined && pending.base.number === target.number) {
    const b = pending.base;
    const parent = storedHeader(spec, store, b.number - 1);
    const header = createBlockHeader(
      {
        parentHash: b.parentHash,
        coinbase: b.coinbase,
        number: BigInt(b.number),
        gasLimit: b.gasLimit,
        gasUsed: pending.gasUsed,
        timestamp: b.timestamp,
        mixHash: b.prevRandao,
        baseFeePerGas: b.baseFeePerGas,
        blobGasUsed: pending.blobGasUsed,
        excessBlobGas: b.excessBlobGas,
        parentBeaconBlockRoot: b.parentBeaconBlockRoot,
      },
      { common: spec.common, setHardfork: true, skipConsensusFormatValidation: true },
    );
    return {
      // Like the node's pending block, the base has a zero hash (it has none until sealed);
      // its state is its writes over the parent's, whose trie its state root builds on.
      base: { header, hash: new Uint8Array(32), trieRoot: parent.stateRoot, pending },
      source: overlayPending(pending, sealedView(store, b.number - 1)),
    };
  }
  // A pending target the worker has not seen yet runs on its parent, the newest sealed block.
  const number = target.pending ? target.number - 1 : target.number;
  const header = storedHeader(spec, store, number);
  return {
    base: { header, hash: header.hash(), trieRoot: header.stateRoot, pending: undefined },
    source: sealedView(store, number),
  };
}

export function simulate(
  req: SimulateRequest,
  target: CallTarget,
  spec: ChainSpec,
  store: SimulateStore,
  pending: PendingSnapshot | undefined,
  gasCap: bigint,
): Promise<SimulatedBlock[]> {
  const { base, source } = simBase(spec, store, target, pending);
  return Simulator.run(req, base, {
    spec,
    source,
    nodes: store,
    canonicalHash: (n) => store.canonicalHash(n),
    gasCap,
  });
}
