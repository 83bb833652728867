// `flashnode replica --verify`: every block from the stream is executed with the EVM on top of the
// replica's own state before it is stored, and refused when its header's roots (state, receipts,
// logs bloom, gas used, requests) or its hash differ from what execution gives. The archive then
// stores what its own execution produced (receipts, state changes, code, trie nodes), not the
// message's copy of them: nothing the replica serves is taken on trust.
import { RLP } from "@ethereumjs/rlp";
import { chainSpecFromGenesis } from "../chain/genesis.ts";
import { blockFromRlp } from "../chain/op/blockTx.ts";
import type { BlockWrite } from "../chain/types.ts";
import { BlockExecutor } from "../exec/blockExecutor.ts";
import type { ChainStore } from "../store/archive.ts";
import { FlashnodeError } from "../util/errors.ts";
import { bytesToHex, equalBytes } from "../util/hex.ts";
import type { BlockMessage } from "./codec.ts";

export class BlockVerificationError extends FlashnodeError {
  readonly code = "REPLICA_BLOCK_REFUSED";
}

export type BlockVerifier = {
  /** The archive write of `m` once execution agrees with it; throws BlockVerificationError. */
  verify(m: BlockMessage): Promise<BlockWrite>;
  /** The archive went back (evm_revert): the next block executes on its new head. */
  reset(): void;
};

export function createBlockVerifier(store: ChainStore): BlockVerifier {
  let executor: BlockExecutor | undefined;
  const open = async (config: string): Promise<BlockExecutor> => {
    if (executor !== undefined) return executor;
    const spec = await chainSpecFromGenesis(JSON.parse(config));
    try {
      executor = await BlockExecutor.open(spec, store);
    } catch (e) {
      throw new BlockVerificationError(
        `--verify needs the state trie of the archive's head, which this archive lacks (it was built without --verify, or restored from a replica's snapshot): start on an empty datadir (${(e as Error).message})`,
      );
    }
    return executor;
  };
  const refuse = (m: BlockMessage, why: string): never => {
    throw new BlockVerificationError(
      `block ${m.number} (${bytesToHex(m.hash)}) refused by --verify: ${why}`,
    );
  };
  return {
    reset() {
      executor = undefined;
    },
    async verify(m) {
      const config = m.chainConfig ?? store.chainConfig();
      if (config === undefined) return refuse(m, "no genesis (chain config) to execute from");
      const ex = await open(config);
      if (m.number === 0) {
        const { block, write } = await ex.genesis();
        if (!equalBytes(block.hash(), m.hash))
          refuse(m, `the genesis JSON gives block 0 ${bytesToHex(block.hash())}`);
        return write;
      }
      const header = RLP.decode(m.headerRlp);
      const body = RLP.decode(m.bodyRlp) as unknown as Uint8Array[];
      const block = (() => {
        try {
          return blockFromRlp(RLP.encode([header, ...body]), {
            common: ex.spec.common,
            setHardfork: true,
          });
        } catch (e) {
          return refuse(m, `cannot be decoded: ${(e as Error).message}`);
        }
      })();
      if (!equalBytes(block.hash(), m.hash))
        refuse(m, `its header hashes to ${bytesToHex(block.hash())}`);
      try {
        return await ex.execute(block);
      } catch (e) {
        return refuse(m, (e as Error).message);
      }
    },
  };
}
