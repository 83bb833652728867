// The method registry: every served method, by wire name. Explicit, no reflection.
import type { RpcBackend } from "./backend.ts";
import { getRawBlock } from "./debug/getRawBlock.ts";
import { getRawHeader } from "./debug/getRawHeader.ts";
import { getRawReceipts } from "./debug/getRawReceipts.ts";
import { getRawTransaction } from "./debug/getRawTransaction.ts";
import { traceBlockByHash } from "./debug/traceBlockByHash.ts";
import { traceBlockByNumber } from "./debug/traceBlockByNumber.ts";
import { traceCall } from "./debug/traceCall.ts";
import { traceTransaction } from "./debug/traceTransaction.ts";
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
import { simulateV1 } from "./eth/simulateV1.ts";
import { syncing } from "./eth/syncing.ts";
import { uninstallFilter } from "./eth/uninstallFilter.ts";
import { mine } from "./evm/mine.ts";
import { depositTransaction } from "./flashnode/depositTransaction.ts";
import { getTimings } from "./flashnode/getTimings.ts";
import { getTransactionTimes } from "./flashnode/getTransactionTimes.ts";
import type { MethodRegistry } from "./method.ts";
import { netVersion } from "./net/netVersion.ts";
import { buildBlockV1 } from "./testing/buildBlockV1.ts";
import { content } from "./txpool/content.ts";
import { contentFrom } from "./txpool/contentFrom.ts";
import { inspect } from "./txpool/inspect.ts";
import { status } from "./txpool/status.ts";
import { clientVersion } from "./web3/clientVersion.ts";

export function createMethods(backend: RpcBackend): MethodRegistry {
  return {
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
