// Where a chain's archive begins, and an executor opened on it: a chain of its own from its
// genesis, or a forked chain from its base block F. A new chain's first block, its config and
// (a fork's) base record commit in one write, and so does a replacement of whatever chain the
// archive held (anvil_reset): readers see the old chain or the new one, never a mixture, and a
// crash leaves one or the other.
import type { ChainSpec } from "../chain/genesis.ts";
import type { BlockWrite } from "../chain/types.ts";
import type { ChainStore } from "../store/archive.ts";
import { FlashnodeError } from "../util/errors.ts";
import { bytesToHex, equalBytes } from "../util/hex.ts";
import { BlockExecutor } from "./blockExecutor.ts";
import type { ForkBaseWrite, ForkedExecution } from "./executorCore.ts";

/** An archive that holds another chain than the one asked for. */
export class ChainStartError extends FlashnodeError {
  readonly code = "CHAIN_START";
}

/** Where a forked chain starts: F, and (for a new archive) its header and base writes. */
export type ForkStart = {
  readonly chainId: bigint;
  readonly number: number;
  readonly hash: Uint8Array;
  readonly base?: { readonly headerRlp: Uint8Array; readonly writes: readonly ForkBaseWrite[] };
};

export type StartOptions = {
  /** Replace whatever chain the archive holds (anvil_reset), in the same write. */
  readonly replace?: boolean;
};

const datadirOf = (store: ChainStore) => store.env.path.replace(/\/archive$/, "");

/**
 * The archive as a new chain sees it while its first block is built beside an old one (a
 * replacement): no head, no state, no fork; trie nodes and code stay readable (content-addressed).
 */
function emptyView(store: ChainStore): ChainStore {
  const none = () => undefined;
  return {
    ...store,
    headNumber: none,
    canonicalHash: none,
    blockNumber: none,
    currentAccount: none,
    currentStorage: () => new Uint8Array(0),
    currentStorageSlots: () => [],
    accountKnown: () => false,
    slotKnown: () => false,
    forkBase: none,
    chainConfig: none,
  };
}

/** Commits a new chain's first block with its config (and fork base) in one write. */
function commitStart(
  store: ChainStore,
  spec: ChainSpec,
  write: BlockWrite,
  replace: boolean,
  forkBase?: Parameters<ChainStore["setForkBase"]>[0],
): void {
  store.env.writeAtomically(() => {
    if (replace) store.clearChain();
    store.setChainConfig(JSON.stringify(spec.genesisJson));
    if (forkBase !== undefined) store.setForkBase(forkBase);
    store.writeBlock(write);
  });
}

/** Writes the genesis block if the archive is empty (or replaced); checks it matches otherwise. */
export async function ensureGenesis(
  spec: ChainSpec,
  store: ChainStore,
  opts: StartOptions = {},
): Promise<BlockExecutor> {
  const replace = opts.replace === true;
  const config = JSON.stringify(spec.genesisJson);
  const stored = store.chainConfig();
  const head = store.headNumber();
  if (!replace && head !== undefined) {
    const fork = store.forkBase();
    if (fork !== undefined)
      throw new ChainStartError(
        `${datadirOf(store)} holds a fork of chain ${fork.chainId} at block ${fork.number}: its state beyond what it wrote is the upstream's, so it runs with --fork-url`,
      );
    // Checked before the executor opens on the stored head: another chain's head under this
    // genesis's rules is not even a valid block.
    if (stored !== config) {
      const chainId = (JSON.parse(stored ?? "{}") as { config?: { chainId?: unknown } }).config
        ?.chainId;
      throw new ChainStartError(
        `${datadirOf(store)} holds a chain from a different genesis (chain id ${String(chainId)}, head ${head}): use another --datadir or remove this one`,
      );
    }
    return BlockExecutor.open(spec, store);
  }
  const builder = await BlockExecutor.open(spec, emptyView(store));
  const { write } = await builder.genesis();
  commitStart(store, spec, write, replace);
  return BlockExecutor.open(spec, store);
}

/**
 * A forked chain's archive, opened on its head, or begun at its base block F (or replaced by
 * one). An archive of another chain, or of a fork at another block, is refused.
 */
export async function ensureForkBase(
  spec: ChainSpec,
  store: ChainStore,
  fork: ForkedExecution,
  start: ForkStart,
  opts: StartOptions = {},
): Promise<BlockExecutor> {
  const replace = opts.replace === true;
  if (!replace && store.headNumber() !== undefined) {
    const stored = store.forkBase();
    if (
      stored === undefined ||
      stored.chainId !== start.chainId ||
      stored.number !== start.number ||
      !equalBytes(stored.hash, start.hash)
    )
      throw new ChainStartError(
        `${datadirOf(store)} holds ${stored === undefined ? "a chain of its own" : `a fork of chain ${stored.chainId} at block ${stored.number}`}, not a fork of chain ${start.chainId} at block ${start.number}: use another --datadir, or --fresh to start over`,
      );
    return BlockExecutor.open(spec, store, fork);
  }
  if (start.base === undefined)
    throw new ChainStartError(
      `${datadirOf(store)} holds no chain yet, and no fork block was prepared`,
    );
  const builder = await BlockExecutor.open(spec, emptyView(store), fork);
  const { write, stateRoot } = await builder.forkBase(start.base.headerRlp, start.base.writes);
  if (!equalBytes(write.hash, start.hash))
    throw new ChainStartError(
      `block ${start.number}'s header does not hash to ${bytesToHex(start.hash)} under this chain's rules`,
    );
  commitStart(store, spec, write, replace, {
    chainId: start.chainId,
    number: start.number,
    hash: start.hash,
    stateRoot,
  });
  return BlockExecutor.open(spec, store, fork);
}
