// The method registry: every served method, by wire name. Explicit, no reflection.
import type { RpcBackend } from "./backend.ts";
import { getBalance, getCode, getTransactionCount } from "./eth/accountState.ts";
import { getBlockByHash, getBlockByNumber } from "./eth/blocks.ts";
import { blockNumber, chainId, clientVersion, netVersion, syncing } from "./eth/chainInfo.ts";
import { getBlockReceipts } from "./eth/getBlockReceipts.ts";
import { getStorageAt } from "./eth/getStorageAt.ts";
import { getStorageValues } from "./eth/getStorageValues.ts";
import { getTransactionByHash, getTransactionReceipt } from "./eth/transactions.ts";
import type { MethodRegistry } from "./method.ts";

export function createMethods(backend: RpcBackend): MethodRegistry {
  return {
    eth_getBlockReceipts: getBlockReceipts(backend),
    eth_getStorageAt: getStorageAt(backend),
    eth_getStorageValues: getStorageValues(backend),
    eth_chainId: chainId(backend),
    net_version: netVersion(backend),
    web3_clientVersion: clientVersion(backend),
    eth_blockNumber: blockNumber(backend),
    eth_syncing: syncing(backend),
    eth_getBlockByNumber: getBlockByNumber(backend),
    eth_getBlockByHash: getBlockByHash(backend),
    eth_getTransactionReceipt: getTransactionReceipt(backend),
    eth_getTransactionByHash: getTransactionByHash(backend),
    eth_getBalance: getBalance(backend),
    eth_getCode: getCode(backend),
    eth_getTransactionCount: getTransactionCount(backend),
  };
}
