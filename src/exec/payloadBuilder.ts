// testing_buildBlockV1: a block on the head built as geth's miner builds one (eth/catalyst
// api_testing.go, miner/worker.go), then thrown away. It runs on the head's state through the
// archive's trie nodes, in memory: trie writes stay in a buffer nobody takes, so the chain and
// the archive are untouched. The EVM library's block builder does the block's system work: the
// EIP-4788 beacon root and EIP-2935 parent hash calls first, the withdrawals and the EIP-7685
// requests (deposit logs, the EIP-7002 and EIP-7251 queue calls) last.
import { type Block, createBlock, createBlockHeaderFromRLP } from "@ethereumjs/block";
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { MerkleStateManager } from "@ethereumjs/statemanager";
import { type Blob4844Tx, createTxFromRLP, type TypedTransaction } from "@ethereumjs/tx";
import type { Address } from "@ethereumjs/util";
import { buildBlock, type VM } from "@ethereumjs/vm";
import { calcGasLimit } from "../chain/gasLimit.ts";
import type { ChainSpec } from "../chain/genesis.ts";
import type { BuildBlockRequest, BuiltPayload } from "../services/buildBlock.ts";
import type { ChainStore } from "../store/archive.ts";
import { equalBytes, hexToBytes } from "../util/hex.ts";
import { CallFailedError } from "./callExecutor.ts";
import { decodeRawTransaction } from "./decodeTransaction.ts";
import { createNodeVm } from "./nodeVm.ts";
import { BufferedTrieDb } from "./trieDb.ts";
import { precheck } from "./txPrecheck.ts";
import { addTransaction, builderHeader } from "./vmInternals.ts";

/** geth's default gas ceiling (miner.gaslimit): what a node without --gas-limit aims for. */
export const DEFAULT_GAS_CEIL = 60_000_000n;

type Reader = Pick<ChainStore, "canonicalHash" | "headerRlp" | "trieNode">;

function fail(message: string): CallFailedError {
  return new CallFailedError(message, -32000, undefined);
}

/** A transaction as given: decoded (a blob one with its sidecar, when it has one). */
function decode(raw: Uint8Array, index: number, vm: VM): TypedTransaction {
  try {
    return decodeRawTransaction(raw, vm.common);
  } catch (e) {
    // A blob transaction in its block form (no sidecar): decoded, refused by the caller.
    if (raw[0] === 3) {
      try {
        return createTxFromRLP(raw, { common: vm.common });
      } catch {}
    }
    const message = (e as Error).message;
    // The EVM library applies EIP-7825's cap when decoding; geth in its pre-check, with this text.
    if (message.startsWith("transaction gas limit too high")) throw fail(message);
    // geth's engine.DecodeTransactions.
    throw fail(`invalid transaction ${index}: ${message}`);
  }
}

async function senderOf(tx: TypedTransaction): Promise<Address> {
  return tx.getSenderAddress();
}

export async function buildPayload(
  spec: ChainSpec,
  store: Reader,
  gasCeil: bigint,
  req: BuildBlockRequest,
): Promise<BuiltPayload> {
  // An OP-stack block starts with its deposits and charges the L1 fee: built by the
  // sequencer only (evm_mine), never guessed here.
  if (spec.op !== undefined)
    throw fail("testing_buildBlockV1 is not supported on an OP-stack chain (use evm_mine)");
  const hash = store.canonicalHash(req.parent);
  const rlp = hash === undefined ? undefined : store.headerRlp(req.parent, hash);
  if (hash === undefined || rlp === undefined || !equalBytes(hash, req.parentHash))
    throw fail("parentHash is not current head");
  const parent = createBlockHeaderFromRLP(rlp, { common: spec.common, setHardfork: true });
  if (parent.timestamp >= req.timestamp)
    throw fail(`invalid timestamp, parent ${parent.timestamp} given ${req.timestamp}`);
  const common = spec.common.copy();
  common.setHardforkBy({ blockNumber: parent.number + 1n, timestamp: req.timestamp });
  const shanghai = common.isActivatedEIP(4895);
  if (!shanghai && req.withdrawals !== undefined)
    throw fail("unexpected withdrawals before shanghai");
  const cancun = common.isActivatedEIP(4788);
  // geth would build a header without the root, which no node accepts: refused instead.
  if (cancun && req.parentBeaconBlockRoot === undefined)
    throw fail("missing parentBeaconBlockRoot: payload attributes need it from Cancun on");
  if (store.trieNode(parent.stateRoot) === undefined)
    throw fail("blocks cannot be built here: the archive holds no trie nodes for the head's state");

  const trie = new MerklePatriciaTrie({
    db: new BufferedTrieDb(store),
    useKeyHashing: true,
    valueEncoding: "view",
    common,
  });
  const state = new MerkleStateManager({ common, trie });
  await state.setStateRoot(parent.stateRoot);
  const vm = await createNodeVm({
    common,
    stateManager: state,
    blockHash: (n) => store.canonicalHash(n),
    missing: "throw",
  });
  const parentBlock: Block = createBlock(
    { header: parent.toJSON() },
    { common: parent.common, skipConsensusFormatValidation: true },
  );
  const withdrawals = shanghai ? (req.withdrawals ?? []) : undefined;
  const builder = await buildBlock(vm, {
    parentBlock,
    headerData: {
      coinbase: req.feeRecipient,
      timestamp: req.timestamp,
      gasLimit: calcGasLimit(parent.gasLimit, gasCeil),
      mixHash: req.prevRandao,
      extraData: req.extraData,
      ...(cancun && req.parentBeaconBlockRoot !== undefined
        ? { parentBeaconBlockRoot: req.parentBeaconBlockRoot }
        : {}),
    },
    ...(withdrawals === undefined
      ? {}
      : {
          withdrawals: withdrawals.map((w) => ({
            index: w.index,
            validatorIndex: w.validatorIndex,
            address: w.address,
            amount: w.amount,
          })),
        }),
    // geth's testing API checks no header rule (extra data over 32 bytes, say): nor does this.
    blockOpts: { putBlockIntoBlockchain: false, skipConsensusFormatValidation: true },
  });
  const headerData = builderHeader(builder);
  const baseFee = headerData.baseFeePerGas;
  const blobGasPrice = common.isActivatedEIP(4844)
    ? parentBlock.header.calcNextBlobGasPrice(common)
    : undefined;
  const sidecars: Blob4844Tx[] = [];
  const maxBlobs = common.isActivatedEIP(4844)
    ? Number(common.getBlobGasSchedule().maxBlobGasPerBlock / 131072n)
    : 0;
  let blobs = 0;
  for (const [i, raw] of req.transactions.entries()) {
    const tx = decode(raw, i, vm);
    const blobTx = tx.type === 3 ? (tx as Blob4844Tx) : undefined;
    let problem: string | undefined;
    if (blobTx !== undefined && blobTx.blobs === undefined)
      problem = "blob transaction without blobs";
    else if (blobTx !== undefined && blobs + blobTx.numBlobs() > maxBlobs)
      problem = "max data blobs reached";
    else
      problem = await senderOf(tx).then(
        (from) =>
          precheck(vm, tx, from, {
            baseFee,
            blobGasPrice,
            gasLeft: headerData.gasLimit - builder.gasUsed,
          }),
        // geth's types.ErrInvalidSender.
        () => "invalid sender",
      );
    if (problem === undefined) {
      try {
        await addTransaction(builder, tx, false);
      } catch (e) {
        problem = (e as Error).message.split(" (block")[0] ?? "transaction failed";
      }
    }
    if (problem !== undefined) {
      // All given transactions must apply; the pool's are skipped, as geth's miner skips them.
      if (!req.fromPool) throw fail(problem);
      continue;
    }
    if (blobTx !== undefined) {
      sidecars.push(blobTx);
      blobs += blobTx.numBlobs();
    }
  }
  const { block, requests } = await builder.build();
  const hexes = (list: readonly string[] | undefined) => (list ?? []).map((h) => hexToBytes(h));
  return {
    headerRlp: block.header.serialize(),
    transactions: block.transactions.map((t) => t.serialize()),
    withdrawals,
    blockValue: builder.minerValue,
    blobs: {
      commitments: sidecars.flatMap((t) => hexes(t.kzgCommitments)),
      proofs: sidecars.flatMap((t) => hexes(t.kzgProofs)),
      blobs: sidecars.flatMap((t) => hexes(t.blobs)),
    },
    // geth lists only the requests that carry data.
    requests: requests?.filter((r) => r.bytes.length > 1).map((r) => r.bytes),
  };
}
