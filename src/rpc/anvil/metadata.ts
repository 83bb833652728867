import type { RpcBackend } from "../../services/backend.ts";
import { bytesToHex, quantity } from "../../util/hex.ts";
import { VERSION } from "../../version.ts";
import { devControl } from "../dev/devControl.ts";
import { defineMethod } from "../method.ts";
import { headBlock } from "./nodeInfo.ts";

/**
 * anvil_metadata (hardhat_metadata) → anvil's Metadata: the client, the chain id, the newest
 * sealed block, this run's instance id (a restart is a new instance, as anvil's) and the
 * snapshots evm_revert can still go back to (id → [head number, head hash]); a forked chain's
 * network (its upstream's chain id, fork block number and hash).
 */
export function metadata(backend: RpcBackend) {
  return defineMethod({
    params: [],
    handler: async () => {
      const head = headBlock(backend);
      const { instanceId, snapshots = [] } = await devControl(backend, { op: "metadata" });
      return {
        clientVersion: backend.clientVersion,
        clientSemver: VERSION,
        clientCommitSha: null,
        chainId: Number(backend.chainId),
        instanceId: instanceId === undefined ? null : bytesToHex(instanceId),
        latestBlockNumber: head.number,
        latestBlockHash: bytesToHex(head.hash),
        forkedNetwork:
          backend.fork === undefined
            ? null
            : {
                chainId: Number(backend.fork.chainId),
                forkBlockNumber: backend.fork.number,
                forkBlockHash: bytesToHex(backend.fork.hash),
              },
        snapshots: Object.fromEntries(
          snapshots.map(([id, number, hash]) => [quantity(id), [number, bytesToHex(hash)]]),
        ),
      };
    },
  });
}
