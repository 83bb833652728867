// The method registry: every served method, by wire name. Explicit, no reflection.
import type { RpcBackend } from "../services/backend.ts";
import { autoImpersonateAccount } from "./anvil/autoImpersonateAccount.ts";
import { impersonateAccount, stopImpersonatingAccount } from "./anvil/impersonateAccount.ts";
import { mineBlocks } from "./anvil/mine.ts";
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
import type { MethodRegistry } from "./method.ts";
import { netVersion } from "./net/netVersion.ts";
import { personalSign } from "./personal/sign.ts";
import { buildBlockV1 } from "./testing/buildBlockV1.ts";
import { content } from "./txpool/content.ts";
import { contentFrom } from "./txpool/contentFrom.ts";
import { inspect } from "./txpool/inspect.ts";
import { status } from "./txpool/status.ts";
import { clientVersion } from "./web3/clientVersion.ts";

/**
 * The dev methods (anvil's, with the aliases anvil answers to: Hardhat's plugins call the
 * hardhat_* names, Ganache-era scripts the evm_* ones).
 */
function devMethods(backend: RpcBackend): MethodRegistry {
  const m = {
    setBalance: setBalance(backend),
    setCode: setCode(backend),
    setNonce: setNonce(backend),
    setStorageAt: setStorageAt(backend),
    impersonate: impersonateAccount(backend),
    stopImpersonating: stopImpersonatingAccount(backend),
    autoImpersonate: autoImpersonateAccount(backend),
    mine: mineBlocks(backend),
    snapshot: snapshot(backend),
    revert: revert(backend),
    increaseTime: increaseTime(backend),
    setNextBlockTimestamp: setNextBlockTimestamp(backend),
    accounts: accounts(backend),
  };
  return {
    eth_accounts: m.accounts,
    eth_requestAccounts: m.accounts,
    eth_sendTransaction: sendTransaction(backend),
    eth_signTransaction: signTransaction(backend),
    eth_sign: sign(backend),
    personal_sign: personalSign(backend),
    eth_signTypedData_v4: signTypedDataV4(backend),
    anvil_setBalance: m.setBalance,
    hardhat_setBalance: m.setBalance,
    anvil_setCode: m.setCode,
    hardhat_setCode: m.setCode,
    anvil_setNonce: m.setNonce,
    hardhat_setNonce: m.setNonce,
    evm_setAccountNonce: m.setNonce,
    anvil_setStorageAt: m.setStorageAt,
    hardhat_setStorageAt: m.setStorageAt,
    anvil_impersonateAccount: m.impersonate,
    hardhat_impersonateAccount: m.impersonate,
    anvil_stopImpersonatingAccount: m.stopImpersonating,
    hardhat_stopImpersonatingAccount: m.stopImpersonating,
    anvil_autoImpersonateAccount: m.autoImpersonate,
    hardhat_autoImpersonateAccount: m.autoImpersonate,
    anvil_mine: m.mine,
    hardhat_mine: m.mine,
    evm_snapshot: m.snapshot,
    anvil_snapshot: m.snapshot,
    evm_revert: m.revert,
    anvil_revert: m.revert,
    evm_increaseTime: m.increaseTime,
    anvil_increaseTime: m.increaseTime,
    evm_setNextBlockTimestamp: m.setNextBlockTimestamp,
    anvil_setNextBlockTimestamp: m.setNextBlockTimestamp,
  };
}

export function createMethods(backend: RpcBackend): MethodRegistry {
  return {
    ...devMethods(backend),
    eth_getBlockReceipts: getBlockReceipts(backend),
    eth_getStorageAt: getStorageAt(backend),
    eth_getStorageValues: getStorageValues(backend),
    eth_chainId: chainId(backend),
    eth_config: config(backend),
    eth_capabilities: capabilities(backend),
    net_version: netVersion(backend),
    web3_clientVersion: clientVersion(backend),
    eth_blockNumber: blockNumber(backend),
    eth_syncing: syncing(backend),
    eth_getBlockByNumber: getBlockByNumber(backend),
    eth_getBlockByHash: getBlockByHash(backend),
    eth_getTransactionReceipt: getTransactionReceipt(backend),
    eth_getTransactionByHash: getTransactionByHash(backend),
    eth_getTransactionByBlockHashAndIndex: getTransactionByBlockHashAndIndex(backend),
    eth_getTransactionByBlockNumberAndIndex: getTransactionByBlockNumberAndIndex(backend),
    eth_getBlockTransactionCountByHash: getBlockTransactionCountByHash(backend),
    eth_getBlockTransactionCountByNumber: getBlockTransactionCountByNumber(backend),
    eth_getUncleCountByBlockHash: getUncleCountByBlockHash(backend),
    eth_getUncleCountByBlockNumber: getUncleCountByBlockNumber(backend),
    eth_getUncleByBlockHashAndIndex: getUncleByBlockHashAndIndex(backend),
    eth_getUncleByBlockNumberAndIndex: getUncleByBlockNumberAndIndex(backend),
    eth_getBalance: getBalance(backend),
    eth_getCode: getCode(backend),
    eth_getTransactionCount: getTransactionCount(backend),
    eth_sendRawTransaction: sendRawTransaction(backend),
    eth_sendRawTransactionSync: sendRawTransactionSync(backend),
    eth_call: call(backend),
    eth_estimateGas: estimateGas(backend),
    eth_createAccessList: createAccessList(backend),
    eth_simulateV1: simulateV1(backend),
    eth_gasPrice: gasPrice(backend),
    eth_maxPriorityFeePerGas: maxPriorityFeePerGas(backend),
    eth_feeHistory: feeHistory(backend),
    eth_getLogs: getLogs(backend),
    eth_getProof: getProof(backend),
    eth_newFilter: newFilter(backend),
    eth_newBlockFilter: newBlockFilter(backend),
    eth_newPendingTransactionFilter: newPendingTransactionFilter(backend),
    eth_getFilterChanges: getFilterChanges(backend),
    eth_getFilterLogs: getFilterLogs(backend),
    eth_uninstallFilter: uninstallFilter(backend),
    eth_baseFee: baseFee(backend),
    eth_blobBaseFee: blobBaseFee(backend),
    debug_getRawHeader: getRawHeader(backend),
    debug_getRawBlock: getRawBlock(backend),
    debug_getRawReceipts: getRawReceipts(backend),
    debug_getRawTransaction: getRawTransaction(backend),
    debug_traceTransaction: traceTransaction(backend),
    debug_traceBlockByNumber: traceBlockByNumber(backend),
    debug_traceBlockByHash: traceBlockByHash(backend),
    debug_traceCall: traceCall(backend),
    evm_mine: mine(backend),
    flashnode_depositTransaction: depositTransaction(backend),
    testing_buildBlockV1: buildBlockV1(backend),
    txpool_content: content(backend),
    txpool_contentFrom: contentFrom(backend),
    txpool_inspect: inspect(backend),
    txpool_status: status(backend),
    flashnode_getTransactionTimes: getTransactionTimes(backend),
    flashnode_getTimings: getTimings(backend),
  };
}
