// Where a follower's transactions go: the upstream, or --tx-forward (a sequencer's endpoint),
// answered with its own answer — the hash, or its JSON-RPC error (code, message and data). Used
// for the node's own clients and, with --nats, for its replicas' (over NATS request/reply).
import type { Logger } from "../log/logger.ts";
import { RpcError } from "../services/errors.ts";
import type { UpstreamHooks } from "../upstream/calls.ts";
import { UpstreamClient } from "../upstream/client.ts";
import { UpstreamCallError } from "../upstream/errors.ts";
import type { UpstreamOptions } from "../upstream/options.ts";
import { bytesToHex } from "../util/hex.ts";

export type TransactionForwarder = {
  submit(raw: Uint8Array): Promise<{ hash: string }>;
  /** Refused: a follower's blocks are the upstream's. */
  mine(): Promise<number>;
  close(): void;
};

export function transactionForwarder(
  target: UpstreamOptions,
  logger: Logger | undefined,
  hooks?: UpstreamHooks,
): TransactionForwarder {
  const client = new UpstreamClient(target, {
    ...(logger === undefined ? {} : { logger }),
    ...(hooks === undefined ? {} : { hooks }),
  });
  return {
    async submit(raw) {
      try {
        return { hash: await client.call<string>("eth_sendRawTransaction", [bytesToHex(raw)]) };
      } catch (e) {
        if (e instanceof UpstreamCallError) throw new RpcError(e.rpcCode, e.rpcMessage, e.rpcData);
        throw e;
      }
    },
    mine: () =>
      Promise.reject(
        new RpcError(-32000, "this node follows a live chain: its blocks are the upstream's"),
      ),
    close: () => client.close(),
  };
}
