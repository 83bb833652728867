// The method registry: every served method, by wire name. Explicit, no reflection.
import type { RpcBackend } from "../services/backend.ts";
import { autoImpersonateAccount } from "./anvil/autoImpersonateAccount.ts";
import { impersonateAccount, stopImpersonatingAccount } from "./anvil/impersonateAccount.ts";
import { mineBlocks } from "./anvil/mine.ts";
import { reset } from "./anvil/reset.ts";
import { setBalance } from "./anvil/setBalance.ts";
import { setCode } from "./anvil/setCode.ts";
import { setNonce } from "./anvil/setNonce.ts";
import { setStorageAt } from "./anvil/setStorageAt.ts";
import { getRawBlock } from "./debug/getRawBlock.ts";
import { getRawHeader } from "./debug/getRawHeader.ts";
import { getRawReceipts } from "./debug/getRawReceipts.ts";
import { getRawTransaction } from "./debug/getRawTransaction.ts";
import { traceBlockByHash } from "./debug/traceBlockByHash.ts";
import { traceBlockByNumber } from "./debug/traceBlockByNumber.ts";
import { traceCall } from "./debug/traceCall.ts";
import { traceTransaction } from "./debug/traceTransaction.ts";
import { accounts } from "./eth/accounts.ts";
import { baseFee } from "./eth/baseFee.ts";
import { blobBaseFee } from "./eth/blobBaseFee.ts";
import { blockNumber } from "./eth/blockNumber.ts";
import { call } from "./eth/call.ts";
import { capabilities } from "./eth/capabilities.ts";
import { chainId } from "./eth/chainId.ts";
import { config } from "./eth/config.ts";
import { createAccessList } from "./eth/createAccessList.ts";
import { estimateGas } from "./eth/estimateGas.ts";
import { feeHistory } from "./eth/feeHistory.ts";
import { gasPrice } from "./eth/gasPrice.ts";
import { getBalance } from "./eth/getBalance.ts";
import { getBlockByHash } from "./eth/getBlockByHash.ts";
import { getBlockByNumber } from "./eth/getBlockByNumber.ts";
import { getBlockReceipts } from "./eth/getBlockReceipts.ts";
import { getBlockTransactionCountByHash } from "./eth/getBlockTransactionCountByHash.ts";
import { getBlockTransactionCountByNumber } from "./eth/getBlockTransactionCountByNumber.ts";
import { getCode } from "./eth/getCode.ts";
import { getFilterChanges } from "./eth/getFilterChanges.ts";
import { getFilterLogs } from "./eth/getFilterLogs.ts";
import { getLogs } from "./eth/getLogs.ts";
import { getProof } from "./eth/getProof.ts";
import { getStorageAt } from "./eth/getStorageAt.ts";
import { getStorageValues } from "./eth/getStorageValues.ts";
import { getTransactionByBlockHashAndIndex } from "./eth/getTransactionByBlockHashAndIndex.ts";
import { getTransactionByBlockNumberAndIndex } from "./eth/getTransactionByBlockNumberAndIndex.ts";
import { getTransactionByHash } from "./eth/getTransactionByHash.ts";
import { getTransactionCount } from "./eth/getTransactionCount.ts";
import { getTransactionReceipt } from "./eth/getTransactionReceipt.ts";
import { getUncleByBlockHashAndIndex } from "./eth/getUncleByBlockHashAndIndex.ts";
import { getUncleByBlockNumberAndIndex } from "./eth/getUncleByBlockNumberAndIndex.ts";
import { getUncleCountByBlockHash } from "./eth/getUncleCountByBlockHash.ts";
import { getUncleCountByBlockNumber } from "./eth/getUncleCountByBlockNumber.ts";
import { maxPriorityFeePerGas } from "./eth/maxPriorityFeePerGas.ts";
import { newBlockFilter } from "./eth/newBlockFilter.ts";
import { newFilter } from "./eth/newFilter.ts";
import { newPendingTransactionFilter } from "./eth/newPendingTransactionFilter.ts";
import { sendRawTransaction } from "./eth/sendRawTransaction.ts";
import { sendRawTransactionSync } from "./eth/sendRawTransactionSync.ts";
import { sendTransaction } from "./eth/sendTransaction.ts";
import { sign } from "./eth/sign.ts";
import { signTransaction } from "./eth/signTransaction.ts";
import { signTypedDataV4 } from "./eth/signTypedDataV4.ts";
import { simulateV1 } from "./eth/simulateV1.ts";
import { syncing } from "./eth/syncing.ts";
import { uninstallFilter } from "./eth/uninstallFilter.ts";
import { increaseTime } from "./evm/increaseTime.ts";
import { mine } from "./evm/mine.ts";
import { revert } from "./evm/revert.ts";
import { setNextBlockTimestamp } from "./evm/setNextBlockTimestamp.ts";
import { snapshot } from "./evm/snapshot.ts";
import { depositTransaction } from "./flashnode/depositTransaction.ts";
import { getTimings } from "./flashnode/getTimings.ts";
import { getTransactionTimes } from "./flashnode/getTransactionTimes.ts";
import type { MethodDef, MethodRegistry } from "./method.ts";
import { netVersion } from "./net/netVersion.ts";
import { personalSign } from "./personal/sign.ts";
import { buildBlockV1 } from "./testing/buildBlockV1.ts";
import { content } from "./txpool/content.ts";
import { contentFrom } from "./txpool/contentFrom.ts";
import { inspect } from "./txpool/inspect.ts";
import { status } from "./txpool/status.ts";
import { clientVersion } from "./web3/clientVersion.ts";

type MethodFactory = (backend: RpcBackend) => MethodDef;

/**
 * The dev methods (anvil's, with the aliases anvil answers to: Hardhat's plugins call the
 * hardhat_* names, Ganache-era scripts the evm_* ones).
 */
const DEV_METHODS = {
  eth_accounts: accounts,
  eth_requestAccounts: accounts,
  eth_sendTransaction: sendTransaction,
  eth_signTransaction: signTransaction,
  eth_sign: sign,
  personal_sign: personalSign,
  eth_signTypedData_v4: signTypedDataV4,
  anvil_setBalance: setBalance,
  hardhat_setBalance: setBalance,
  anvil_setCode: setCode,
  hardhat_setCode: setCode,
  anvil_setNonce: setNonce,
  hardhat_setNonce: setNonce,
  evm_setAccountNonce: setNonce,
  anvil_setStorageAt: setStorageAt,
  hardhat_setStorageAt: setStorageAt,
  anvil_impersonateAccount: impersonateAccount,
  hardhat_impersonateAccount: impersonateAccount,
  anvil_stopImpersonatingAccount: stopImpersonatingAccount,
  hardhat_stopImpersonatingAccount: stopImpersonatingAccount,
  anvil_autoImpersonateAccount: autoImpersonateAccount,
  hardhat_autoImpersonateAccount: autoImpersonateAccount,
  anvil_mine: mineBlocks,
  hardhat_mine: mineBlocks,
  anvil_reset: reset(null),
  hardhat_reset: reset(true),
  evm_snapshot: snapshot,
  anvil_snapshot: snapshot,
  evm_revert: revert,
  anvil_revert: revert,
  evm_increaseTime: increaseTime,
  anvil_increaseTime: increaseTime,
  evm_setNextBlockTimestamp: setNextBlockTimestamp,
  anvil_setNextBlockTimestamp: setNextBlockTimestamp,
} satisfies Record<string, MethodFactory>;

/** Every served method by wire name, as the factory of its definition. */
const METHODS = {
  ...DEV_METHODS,
  eth_getBlockReceipts: getBlockReceipts,
  eth_getStorageAt: getStorageAt,
  eth_getStorageValues: getStorageValues,
  eth_chainId: chainId,
  eth_config: config,
  eth_capabilities: capabilities,
  net_version: netVersion,
  web3_clientVersion: clientVersion,
  eth_blockNumber: blockNumber,
  eth_syncing: syncing,
  eth_getBlockByNumber: getBlockByNumber,
  eth_getBlockByHash: getBlockByHash,
  eth_getTransactionReceipt: getTransactionReceipt,
  eth_getTransactionByHash: getTransactionByHash,
  eth_getTransactionByBlockHashAndIndex: getTransactionByBlockHashAndIndex,
  eth_getTransactionByBlockNumberAndIndex: getTransactionByBlockNumberAndIndex,
  eth_getBlockTransactionCountByHash: getBlockTransactionCountByHash,
  eth_getBlockTransactionCountByNumber: getBlockTransactionCountByNumber,
  eth_getUncleCountByBlockHash: getUncleCountByBlockHash,
  eth_getUncleCountByBlockNumber: getUncleCountByBlockNumber,
  eth_getUncleByBlockHashAndIndex: getUncleByBlockHashAndIndex,
  eth_getUncleByBlockNumberAndIndex: getUncleByBlockNumberAndIndex,
  eth_getBalance: getBalance,
  eth_getCode: getCode,
  eth_getTransactionCount: getTransactionCount,
  eth_sendRawTransaction: sendRawTransaction,
  eth_sendRawTransactionSync: sendRawTransactionSync,
  eth_call: call,
  eth_estimateGas: estimateGas,
  eth_createAccessList: createAccessList,
  eth_simulateV1: simulateV1,
  eth_gasPrice: gasPrice,
  eth_maxPriorityFeePerGas: maxPriorityFeePerGas,
  eth_feeHistory: feeHistory,
  eth_getLogs: getLogs,
  eth_getProof: getProof,
  eth_newFilter: newFilter,
  eth_newBlockFilter: newBlockFilter,
  eth_newPendingTransactionFilter: newPendingTransactionFilter,
  eth_getFilterChanges: getFilterChanges,
  eth_getFilterLogs: getFilterLogs,
  eth_uninstallFilter: uninstallFilter,
  eth_baseFee: baseFee,
  eth_blobBaseFee: blobBaseFee,
  debug_getRawHeader: getRawHeader,
  debug_getRawBlock: getRawBlock,
  debug_getRawReceipts: getRawReceipts,
  debug_getRawTransaction: getRawTransaction,
  debug_traceTransaction: traceTransaction,
  debug_traceBlockByNumber: traceBlockByNumber,
  debug_traceBlockByHash: traceBlockByHash,
  debug_traceCall: traceCall,
  evm_mine: mine,
  flashnode_depositTransaction: depositTransaction,
  testing_buildBlockV1: buildBlockV1,
  txpool_content: content,
  txpool_contentFrom: contentFrom,
  txpool_inspect: inspect,
  txpool_status: status,
  flashnode_getTransactionTimes: getTransactionTimes,
  flashnode_getTimings: getTimings,
} satisfies Record<string, MethodFactory>;

/** The wire names of every served method, known before any node exists (--policy is checked against them). */
export const METHOD_NAMES: readonly string[] = Object.keys(METHODS);

export function createMethods(backend: RpcBackend): MethodRegistry {
  // An alias shares its method's definition: one per factory.
  const made = new Map<MethodFactory, MethodDef>();
  const out: Record<string, MethodDef> = {};
  for (const [name, factory] of Object.entries(METHODS) as [string, MethodFactory][]) {
    let def = made.get(factory);
    if (def === undefined) {
      def = factory(backend);
      made.set(factory, def);
    }
    out[name] = def;
  }
  return out;
}
