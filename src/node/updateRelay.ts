// The primary's side of `dev --rpc-workers N` and `replica --rpc-workers N`: it hands the chain
// stream to every reader (the current block's updates so far to a reader that joins, then each
// new one), writes the position fence before any reader can show an update, and runs the
// readers' transactions through the one target (dev's sequencer; a replica's NATS forwarder).
import type { Worker } from "node:cluster";
import type { Logger } from "../log/logger.ts";
import { type ChainUpdate, updatePosition } from "../pending/types.ts";
import type { TransactionTarget } from "../replica/txForwarding.ts";
import { DEV_METHODS_UNAVAILABLE } from "../rpc/dev/devControl.ts";
import { NO_POOL_MESSAGE } from "../rpc/txpool/pool.ts";
import { ServerError, toRpcError } from "../services/errors.ts";
import type { DevAnswer, DevRequest, PoolContent } from "../services/transactions.ts";
import { bytesToUnprefixedHex } from "../util/hex.ts";
import type { PositionFence } from "./positionFence.ts";
import type { PrimaryMessage, ReaderMessage } from "./readerLink.ts";

export type UpdateRelay = {
  publish(u: ChainUpdate): void;
  /** Sends to every following reader (a replica's lag). */
  broadcast(m: PrimaryMessage): void;
  onMessage(from: Worker, m: ReaderMessage): void;
  onExit(w: Worker): void;
};

/** Where readers' transactions go; dev's sequencer also knows its pool's next nonces. */
export type RelayTarget = TransactionTarget & {
  poolNonceEntries?(): Array<readonly [string, bigint]>;
  poolContent?(): Promise<PoolContent>;
  control?(request: DevRequest): Promise<DevAnswer>;
  onPoolNonce?: ((sender: Uint8Array, nextNonce: bigint) => void) | undefined;
};

export function createUpdateRelay(
  sequencer: RelayTarget,
  fence: PositionFence,
  logger: Logger,
): UpdateRelay {
  const following = new Set<Worker>();
  // The block being built, from its flashblock 0 (or the seal that carried it): what a reader
  // that joins now needs to show the same pending view as the others.
  let current: ChainUpdate[] = [];
  const post = (w: Worker, m: PrimaryMessage) => {
    if (w.isConnected()) w.send(m);
  };
  sequencer.onPoolNonce = (sender, nonce) => {
    const entries = [[bytesToUnprefixedHex(sender), nonce] as const];
    for (const w of following) post(w, { type: "flashnode:poolNonces", entries });
  };
  const reply = (w: Worker, id: number, work: Promise<string>) => {
    work.then(
      (value) => post(w, { type: "flashnode:reply", id, value }),
      (e: unknown) => post(w, { type: "flashnode:reply", id, error: toRpcError(e) }),
    );
  };
  return {
    publish(u) {
      if (u.kind === "sealed" || u.index === 0) current = [u];
      else current.push(u);
      // Before any reader has it: a reader asked after this waits for it (positionFence.ts).
      fence.write(updatePosition(u));
      const sentAt = performance.timeOrigin + performance.now();
      for (const w of following) post(w, { type: "flashnode:updates", updates: [u], sentAt });
    },
    broadcast(m) {
      for (const w of following) post(w, m);
    },
    onMessage(from, m) {
      switch (m.type) {
        case "flashnode:follow":
          if (sequencer.poolNonceEntries !== undefined)
            post(from, { type: "flashnode:poolNonces", entries: sequencer.poolNonceEntries() });
          post(from, { type: "flashnode:updates", updates: current });
          following.add(from);
          break;
        case "flashnode:submit":
          reply(
            from,
            m.id,
            sequencer.submit(m.raw).then((r) => r.hash),
          );
          break;
        case "flashnode:mine":
          reply(from, m.id, sequencer.mine().then(String));
          break;
        case "flashnode:pool": {
          const id = m.id;
          const content =
            sequencer.poolContent?.() ?? Promise.reject(new ServerError(NO_POOL_MESSAGE));
          content.then(
            (pool) => post(from, { type: "flashnode:reply", id, pool }),
            (e: unknown) => post(from, { type: "flashnode:reply", id, error: toRpcError(e) }),
          );
          break;
        }
        case "flashnode:control": {
          const id = m.id;
          const answer =
            sequencer.control?.(m.request) ??
            Promise.reject(new ServerError(DEV_METHODS_UNAVAILABLE));
          answer.then(
            (dev) => post(from, { type: "flashnode:reply", id, dev }),
            (e: unknown) => post(from, { type: "flashnode:reply", id, error: toRpcError(e) }),
          );
          break;
        }
        default:
          logger.debug({ type: m.type }, "unexpected reader message");
      }
    },
    onExit(w) {
      following.delete(w);
    },
  };
}
