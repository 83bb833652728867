// The method registry: every served method, by wire name. Explicit, no reflection.
import type { RpcBackend } from "./backend.ts";
import { blockNumber } from "./eth/blockNumber.ts";
import { chainId } from "./eth/chainId.ts";
import { getBalance } from "./eth/getBalance.ts";
import { getBlockByHash } from "./eth/getBlockByHash.ts";
import { getBlockByNumber } from "./eth/getBlockByNumber.ts";
import { getBlockReceipts } from "./eth/getBlockReceipts.ts";
import { getCode } from "./eth/getCode.ts";
import { getStorageAt } from "./eth/getStorageAt.ts";
import { getStorageValues } from "./eth/getStorageValues.ts";
import { getTransactionByHash } from "./eth/getTransactionByHash.ts";
import { getTransactionCount } from "./eth/getTransactionCount.ts";
import { getTransactionReceipt } from "./eth/getTransactionReceipt.ts";
import { syncing } from "./eth/syncing.ts";
import type { MethodRegistry } from "./method.ts";
import { netVersion } from "./net/netVersion.ts";
import { clientVersion } from "./web3/clientVersion.ts";

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
