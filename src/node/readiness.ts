// What /readyz checks: the store is open and a read of the head succeeds; on a sequencing node,
// the pending view is fresh (a flashblock applied within a few intervals); on a replica, the
// archive is not too far behind the block stream.
import type { Health } from "../edge/edgeServer.ts";
import type { ChainReader } from "../store/archive.ts";
import type { KvEnv } from "../store/lmdb.ts";

/** Reasons the store is not ready to serve (empty when it is). */
export function storeReadiness(env: KvEnv, chain: ChainReader): string[] {
  if (!env.isOpen()) return ["store is closed"];
  try {
    return chain.headNumber() === undefined ? ["no head block"] : [];
  } catch (e) {
    return [`store read failed: ${(e as Error).message}`];
  }
}

/** Reasons the pending view is stale: no flashblock yet, or none for longer than `staleAfterMs`. */
export function pendingReadiness(
  lastAppliedAt: number | undefined,
  now: number,
  staleAfterMs: number,
): string[] {
  if (lastAppliedAt === undefined) return ["pending is stale: no flashblock yet"];
  const age = now - lastAppliedAt;
  return age > staleAfterMs ? [`pending is stale: last flashblock ${Math.round(age)} ms ago`] : [];
}

/** A replica is not ready while its archive is more than `maxLagBlocks` behind the block stream. */
export function withinLag(h: Health, behindBlocks: number, maxLagBlocks: number): Health {
  if (behindBlocks <= maxLagBlocks) return h;
  const reason = `${behindBlocks} blocks behind the block stream (at most ${maxLagBlocks})`;
  return { ...h, ready: false, reasons: [...h.reasons, reason] };
}
