// The one place that reaches into what the EVM library keeps private (internals of
// @ethereumjs/vm and @ethereumjs/evm 10.x, checked by the dev end-to-end tests on every run): the
// BlockBuilder's running transaction list and header, the EVM's opcode table, its running
// precompiles, the journal's always-warm set and its bookkeeping; and, in vmInterpreter.ts and the files beside it
// (vmSyncOps.ts, vmLibrary.ts), the interpreter's run loop, named here. Everything else uses the
// library's public API.
import { Block, type BlockOptions, createBlock, type HeaderData } from "@ethereumjs/block";
import type { EVMInterface, PrecompileFunc } from "@ethereumjs/evm";
import type { TypedTransaction } from "@ethereumjs/tx";
import { type Address, EthereumJSErrorWithoutCode } from "@ethereumjs/util";
import { type BlockBuilder, runTx, type VM } from "@ethereumjs/vm";
import type { BlockTransaction } from "../chain/op/blockTx.ts";
import type { DepositTx } from "../chain/op/depositTx.ts";
import type { DepositResult, OpExecution } from "./op/opExecution.ts";
import { syncInterpreterRuns, useSyncInterpreter } from "./vmInterpreter.ts";

type Internals = {
  transactions: BlockTransaction[];
  transactionResults: unknown[];
  gasUsed: bigint;
  headerData: HeaderData & BuilderHeader;
  blockOpts: BlockOptions;
  vm: VM;
  checkpointed: boolean;
  _minerValue: bigint;
  checkStatus(): void;
};

function internals(builder: BlockBuilder): Internals {
  return builder as unknown as Internals;
}

/**
 * The header fields the builder settled when it opened (the base fee and excess blob gas it
 * derived from the parent, the gas limit it was given).
 */
export type BuilderHeader = {
  readonly gasLimit: bigint;
  readonly baseFeePerGas?: bigint;
  readonly excessBlobGas?: bigint;
};

export function builderHeader(builder: BlockBuilder): BuilderHeader {
  return internals(builder).headerData;
}

export function builderTransactions(builder: BlockBuilder): BlockTransaction[] {
  return internals(builder).transactions;
}

/** Each builder's block context: its header as it opened (the gas used so far is passed apart). */
const contexts = new WeakMap<BlockBuilder, Block>();

/**
 * The block a transaction of `builder` runs in (NUMBER, TIMESTAMP, COINBASE, BASEFEE…), made once
 * per block: the library's builder makes a header per transaction, a deep copy of the Common's
 * parameter tables each, only to vary its gas used, which runTx takes as `blockGasUsed`.
 */
export function blockContext(builder: BlockBuilder): Block {
  let block = contexts.get(builder);
  if (block === undefined) {
    const holder = internals(builder);
    block = createBlock({ header: { ...holder.headerData, gasUsed: 0n } }, holder.blockOpts);
    contexts.set(builder, block);
  }
  return block;
}

/**
 * Runs `tx` onto the block being built as BlockBuilder.addTransaction does (checkpoint, gas
 * check, runTx, the builder's totals), in the block context made once per block. Blob
 * transactions (their context carries the blob gas so far) and the two-dimensional gas of
 * EIP-8037 and EIP-7928's access lists take the library's own path.
 */
export async function addTransaction(
  builder: BlockBuilder,
  tx: TypedTransaction,
  allowNoBlobs: boolean,
) {
  const holder = internals(builder);
  const common = holder.vm.common;
  if (tx.type === 3 || common.isActivatedEIP(8037) || common.isActivatedEIP(7928))
    return addTransactionAsLibrary(builder, tx, allowNoBlobs);
  holder.checkStatus();
  if (!holder.checkpointed) {
    await holder.vm.evm.journal.checkpoint();
    holder.checkpointed = true;
  }
  if (tx.gasLimit > BigInt(holder.headerData.gasLimit as bigint) - holder.gasUsed)
    throw EthereumJSErrorWithoutCode(
      "tx has a higher gas limit than the remaining gas in the block",
    );
  const result = await runTx(holder.vm, {
    tx,
    block: blockContext(builder),
    blockGasUsed: holder.gasUsed,
  });
  holder.transactions.push(tx);
  holder.transactionResults.push(result);
  holder.gasUsed += result.blockGasSpent;
  holder._minerValue += result.minerValue;
  return result;
}

/**
 * BlockBuilder.addTransaction re-creates the whole block (every transaction so far) just to give
 * the new one its block context, which makes a block of n transactions cost O(n²). The context
 * needs only the header, so the builder is shown an empty list for the call and the new
 * transaction is appended to the real one afterwards. Roots are still computed from the full
 * list at seal, and every sealed block is verified against them.
 */
async function addTransactionAsLibrary(
  builder: BlockBuilder,
  tx: TypedTransaction,
  allowNoBlobs: boolean,
) {
  const holder = internals(builder);
  const all = holder.transactions;
  holder.transactions = [];
  try {
    const result = await builder.addTransaction(tx, { allowNoBlobs });
    all.push(...holder.transactions);
    return result;
  } finally {
    holder.transactions = all;
  }
}

/** Runs a deposit onto the block being built (the library's builder knows no deposits). */
export async function addDeposit(
  builder: BlockBuilder,
  tx: DepositTx,
  op: OpExecution,
): Promise<DepositResult> {
  const holder = internals(builder);
  const gasLimit = BigInt(holder.headerData.gasLimit as bigint);
  if (tx.gasLimit > gasLimit - holder.gasUsed)
    throw new Error("tx has a higher gas limit than the remaining gas in the block");
  const result = await op.runDeposit(tx, blockContext(builder), holder.gasUsed);
  holder.transactions.push(tx);
  holder.transactionResults.push(result);
  holder.gasUsed += result.totalGasSpent;
  return result;
}

/**
 * The block of what was built, with the transaction and receipt roots given (they are grown
 * one entry at a time, never rebuilt). The library would re-create every transaction from its
 * fields, which it cannot do for a deposit: it builds the header from an empty list and the
 * block is assembled around that header.
 */
export async function sealBuilder(
  builder: BlockBuilder,
  roots: { readonly transactions: Uint8Array; readonly receipts: Uint8Array },
): Promise<Block> {
  Object.assign(builder, {
    transactionsTrie: async () => roots.transactions,
    receiptTrie: async () => roots.receipts,
  });
  const holder = internals(builder);
  const all = holder.transactions;
  holder.transactions = [];
  try {
    const { block } = await builder.build();
    return new Block(block.header, all as TypedTransaction[], [], block.withdrawals, {
      common: block.common,
    });
  } finally {
    holder.transactions = all;
  }
}

/** What the wrapped opcode handlers read of the interpreter's run state. */
export type OpcodeRunState = {
  readonly opCode: number;
  readonly stack: { peek(n: number): bigint[] };
  readonly memory: { read(offset: number, size: number): Uint8Array };
  readonly interpreter: { getAddress(): Address };
  readonly stateManager: { getAccount(a: Address): Promise<{ balance: bigint } | undefined> };
};
export type OpcodeHandler = (runState: OpcodeRunState, common: unknown) => unknown;

/**
 * The EVM's current opcode table, by opcode; its handlers may be replaced (the library rebuilds
 * the table when the fork changes).
 */
export function opcodeTable(evm: EVMInterface): { opHandler: OpcodeHandler }[] {
  return (evm as unknown as { _opcodeMap: { opHandler: OpcodeHandler }[] })._opcodeMap;
}

/** The precompiles the EVM runs now, by address: changing the map changes them. */
export function runningPrecompiles(evm: EVMInterface): Map<string, PrecompileFunc> {
  return (evm as unknown as { precompiles: Map<string, PrecompileFunc> }).precompiles;
}

/** The journal's always-warm set: the addresses (and their slots) a transaction starts warm. */
export function alwaysWarm(vm: VM): Map<string, Set<string>> {
  return (vm.evm.journal as unknown as { alwaysWarmJournal: Map<string, Set<string>> })
    .alwaysWarmJournal;
}

// The interpreter loop without a promise per opcode lives in vmInterpreter.ts (with
// vmSyncOps.ts and vmLibrary.ts): what the rest of flashnode uses of it is named here.
export { syncInterpreterRuns, useSyncInterpreter };

/** The journal's bookkeeping started afresh (a block given up after a throw left it midway). */
export function resetJournal(vm: VM): void {
  (vm.evm.journal as unknown as { cleanJournal(): void }).cleanJournal();
}
