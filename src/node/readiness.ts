// What /readyz checks of the store: it is open and a read of the head succeeds.
import type { ChainReader } from "../store/chainStore.ts";
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
