import type { RpcBackend } from "../../services/backend.ts";
import { ServerError } from "../../services/errors.ts";
import { bytesToHex, quantity } from "../../util/hex.ts";
import { nextBaseFee, SUGGESTED_TIP } from "../eth/fees.ts";
import { defineMethod } from "../method.ts";
import { livePending } from "../resolveBlock.ts";

/** The newest sealed block's number, hash and timestamp. */
export function headBlock(backend: RpcBackend): {
  number: number;
  hash: Uint8Array;
  timestamp: bigint;
} {
  const number = backend.chain.headNumber();
  const hash = number === undefined ? undefined : backend.chain.canonicalHash(number);
  const rlp =
    number === undefined || hash === undefined ? undefined : backend.chain.headerRlp(number, hash);
  if (number === undefined || hash === undefined || rlp === undefined)
    throw new ServerError("archive is empty");
  return { number, hash, timestamp: backend.decoder.header(rlp).timestamp };
}

/**
 * anvil_nodeInfo → anvil's NodeInfo: the newest sealed block (number, timestamp, hash), the
 * hardfork of the block being built (anvil's names: "Osaka"), the pool's order (arrival:
 * "fifo"), and the environment the next transaction meets (the pending block's base fee and gas
 * limit, eth_gasPrice, the chain id). `forkConfig`: a forked chain's upstream (its scheme and
 * host only: a provider's key may be in the path), fork block and retry backoff (ms).
 */
export function nodeInfo(backend: RpcBackend) {
  return defineMethod({
    params: [],
    handler: () => {
      const head = headBlock(backend);
      const pending = livePending(backend);
      const baseFee = nextBaseFee(backend);
      return {
        currentBlockNumber: quantity(head.number),
        currentBlockTimestamp: Number(head.timestamp),
        currentBlockHash: bytesToHex(head.hash),
        hardFork: backend.forks.latestForkName(pending?.base.timestamp ?? head.timestamp),
        transactionOrder: "fifo",
        environment: {
          baseFee: quantity(baseFee),
          chainId: Number(backend.chainId),
          gasLimit: quantity(pending?.base.gasLimit ?? 0n),
          gasPrice: quantity(baseFee + SUGGESTED_TIP),
        },
        forkConfig:
          backend.fork === undefined
            ? { forkUrl: null, forkBlockNumber: null, forkRetryBackoff: null }
            : {
                forkUrl: backend.fork.origin,
                forkBlockNumber: backend.fork.number,
                forkRetryBackoff: backend.fork.retryBackoffMs,
              },
      };
    },
  });
}
